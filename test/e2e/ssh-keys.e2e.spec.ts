import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { ecdsaKey, ed25519Key, rsaKey, referenceFingerprint } from '../support/ssh-keys';

type Client = ReturnType<TestServer['as']>;

describe.each<Profile>(['embedded', 'server'])('SSH keys (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Client;
  let providerId: string;
  let otherProviderId: string;
  let other: Client;
  let otherProjectProviderId: string;

  const newProvider = async (c: Client) => {
    const res = await c.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'x' });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const keysPath = (pid: string, rest = '') => `/v1/ssh-keys${rest}?providerId=${encodeURIComponent(pid)}`;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
    providerId = await newProvider(owner);
    otherProviderId = await newProvider(owner);
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'tenant two' });
    other = srv.as(project.body.included[0].attributes.key);
    otherProjectProviderId = await newProvider(other);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('adds a key (201) with the OpenSSH fingerprint, lists it at once, and records the event', async () => {
    const publicKey = ed25519Key('alice@laptop');
    const created = await owner.post(keysPath(providerId), { name: 'alice', publicKey });
    expect(created.status).toBe(201);
    expect(created.body.data.type).toBe('ssh-keys');
    expect(created.body.data.attributes).toEqual({
      name: 'alice',
      publicKey,
      fingerprint: referenceFingerprint(publicKey),
      fingerprintMd5: expect.stringMatching(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/),
      algorithm: 'ssh-ed25519',
      bits: 256,
      providerId,
      createdAt: expect.any(String),
    });
    const list = await owner.get(keysPath(providerId));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([created.body.data]);
    expect(list.body.meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(list.body.links.first).toContain(`providerId=${providerId}`);

    const events = await srv.platform.events.readStream(`sshkey-${created.body.data.id}`);
    expect(events.map((e) => e.type)).toEqual(['compute.SshKeyAdded.v1']);
    expect(events[0].data).toMatchObject({ projectId: srv.bootstrap.scope, providerId, fingerprint: referenceFingerprint(publicKey) });
  });

  it('accepts RSA (>= 2048 bits) and ECDSA keys and lists only the given provider, sortable by name', async () => {
    const rsa = await owner.post(keysPath(otherProviderId), { name: 'b-rsa', publicKey: rsaKey(2048) });
    expect(rsa.status).toBe(201);
    expect(rsa.body.data.attributes).toMatchObject({ algorithm: 'ssh-rsa', bits: 2048 });
    const ec = ecdsaKey('nistp384', 'ops');
    const ecdsa = await owner.post(keysPath(otherProviderId), { name: 'a-ecdsa', publicKey: ec });
    expect(ecdsa.status).toBe(201);
    expect(ecdsa.body.data.attributes.fingerprint).toBe(referenceFingerprint(ec));
    const byName = await owner.get(`${keysPath(otherProviderId)}&sort=name`);
    expect(byName.body.data.map((k: { attributes: { name: string } }) => k.attributes.name)).toEqual(['a-ecdsa', 'b-rsa']);
    const newest = await owner.get(keysPath(otherProviderId));
    expect(newest.body.data.map((k: { id: string }) => k.id)).toEqual([ecdsa.body.data.id, rsa.body.data.id]);
    const paged = await owner.get(`${keysPath(otherProviderId)}&limit=1&page=2`);
    expect(paged.body.data.map((k: { id: string }) => k.id)).toEqual([rsa.body.data.id]);
    expect(paged.body.meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expect((await owner.get(keysPath(providerId))).body.data.map((k: { attributes: { name: string } }) => k.attributes.name)).toEqual(['alice']);
  });

  it('answers 400 with a /publicKey pointer for invalid keys', async () => {
    const ed = ed25519Key();
    const cases = [
      'not a key',
      `ssh-rsa ${ed.split(' ')[1]}`, // the blob says ssh-ed25519
      rsaKey(1024),
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==',
      `ssh-dss ${ed.split(' ')[1]}`,
    ];
    for (const publicKey of cases) {
      const res = await owner.post(keysPath(providerId), { name: 'bad', publicKey });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ status: '400', code: 'BAD_REQUEST', source: { pointer: '/publicKey' } })]);
    }
    const small = await owner.post(keysPath(providerId), { name: 'bad', publicKey: rsaKey(1024) });
    expect(small.body.errors[0].detail).toMatch(/2048/);
    const both = await owner.post(keysPath(providerId), { name: '', publicKey: 'x' });
    expect(both.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/name', '/publicKey']);
    const long = await owner.post(keysPath(providerId), { name: 'x'.repeat(65), publicKey: ed });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].source.pointer).toBe('/name');
    const jsonApi = await owner.post(keysPath(providerId), { data: { type: 'ssh-keys', attributes: { name: 'j', publicKey: 'nope' } } });
    expect(jsonApi.status).toBe(400);
    expect(jsonApi.body.errors[0].source.pointer).toBe('/data/attributes/publicKey');
    expect((await owner.get(keysPath(providerId))).body.meta.total).toBe(1);
  });

  it('refuses a second key with the same fingerprint on the same provider (409), also concurrently, but not on another provider', async () => {
    const publicKey = ed25519Key('dup');
    const first = await owner.post(keysPath(providerId), { name: 'dup-1', publicKey });
    expect(first.status).toBe(201);
    const again = await owner.post(keysPath(providerId), { name: 'dup-2', publicKey: publicKey.replace(' dup', ' other comment') });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'CONFLICT', detail: expect.stringContaining(first.body.data.attributes.fingerprint) });
    const elsewhere = await owner.post(keysPath(otherProviderId), { name: 'dup-elsewhere', publicKey });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.data.id).not.toBe(first.body.data.id);

    const racer = ed25519Key('race');
    const raced = await Promise.all([1, 2, 3, 4].map((i) => owner.post(keysPath(providerId), { name: `race-${i}`, publicKey: racer })));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const names = (await owner.get(`${keysPath(providerId)}&limit=100`)).body.data.map((k: { attributes: { name: string } }) => k.attributes.name);
    expect(names.filter((n: string) => n.startsWith('race-'))).toHaveLength(1);
  });

  it('deletes a key (204): gone from the list, a second delete is 404, and the key may be added again', async () => {
    const publicKey = ed25519Key('temp');
    const created = await owner.post(keysPath(providerId), { name: 'temp', publicKey });
    const id = created.body.data.id;
    const del = await owner.delete(keysPath(providerId, `/${id}`));
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const ids = (await owner.get(`${keysPath(providerId)}&limit=100`)).body.data.map((k: { id: string }) => k.id);
    expect(ids).not.toContain(id);
    const second = await owner.delete(keysPath(providerId, `/${id}`));
    expect(second.status).toBe(404);
    expect(second.body.errors[0].code).toBe('NOT_FOUND');
    const readded = await owner.post(keysPath(providerId), { name: 'temp again', publicKey });
    expect(readded.status).toBe(201);
    expect(readded.body.data.attributes.name).toBe('temp again');
    const events = await srv.platform.events.readStream(`sshkey-${id}`);
    expect(events.map((e) => e.type)).toEqual(['compute.SshKeyAdded.v1', 'compute.SshKeyDeleted.v1', 'compute.SshKeyAdded.v1']);
  });

  it('deleting through the wrong provider is 404 NOT_FOUND and leaves the key', async () => {
    const created = await owner.post(keysPath(providerId), { name: 'stay', publicKey: ed25519Key() });
    const wrong = await owner.delete(keysPath(otherProviderId, `/${created.body.data.id}`));
    expect(wrong.status).toBe(404);
    expect(wrong.body.errors[0].code).toBe('NOT_FOUND');
    const ids = (await owner.get(`${keysPath(providerId)}&limit=100`)).body.data.map((k: { id: string }) => k.id);
    expect(ids).toContain(created.body.data.id);
  });

  it('requires providerId (400 INVALID_QUERY) and a provider of the project (404 PROVIDER_NOT_FOUND)', async () => {
    for (const res of [await owner.get('/v1/ssh-keys'), await owner.post('/v1/ssh-keys', { name: 'n', publicKey: ed25519Key() }), await owner.delete('/v1/ssh-keys/abc')]) {
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'INVALID_QUERY', source: { parameter: 'providerId' } });
    }
    for (const pid of ['no-such-provider', otherProjectProviderId]) {
      for (const res of [await owner.get(keysPath(pid)), await owner.post(keysPath(pid), { name: 'n', publicKey: ed25519Key() }), await owner.delete(keysPath(pid, '/abc'))]) {
        expect(res.status).toBe(404);
        expect(res.body.errors[0].code).toBe('PROVIDER_NOT_FOUND');
      }
    }
  });

  it("keeps projects apart: another project cannot see or delete this project's keys", async () => {
    const mine = await owner.post(keysPath(providerId), { name: 'private', publicKey: ed25519Key() });
    const theirs = await other.get(keysPath(otherProjectProviderId));
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    const del = await other.delete(keysPath(otherProjectProviderId, `/${mine.body.data.id}`));
    expect(del.status).toBe(404);
    expect(del.body.errors[0].code).toBe('NOT_FOUND');
    // The same public key is independent in another project.
    const same = await other.post(keysPath(otherProjectProviderId), { name: 'same key', publicKey: mine.body.data.attributes.publicKey });
    expect(same.status).toBe(201);
    expect(same.body.data.id).not.toBe(mine.body.data.id);
    expect((await owner.get(`${keysPath(providerId)}&limit=100`)).body.data.map((k: { id: string }) => k.id)).toContain(mine.body.data.id);
  });

  it('lets a viewer read but not write, and a developer write', async () => {
    const viewerKey = (await owner.post('/v1/api-keys', { name: 'viewer', role: 'viewer' })).body.data.attributes.key;
    const viewer = srv.as(viewerKey);
    expect((await viewer.get(keysPath(providerId))).status).toBe(200);
    const denied = await viewer.post(keysPath(providerId), { name: 'v', publicKey: ed25519Key() });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].code).toBe('FORBIDDEN');
    const listed = (await owner.get(keysPath(providerId))).body.data[0].id;
    expect((await viewer.delete(keysPath(providerId, `/${listed}`))).status).toBe(403);
    const devKey = (await owner.post('/v1/api-keys', { name: 'dev', role: 'developer' })).body.data.attributes.key;
    expect((await srv.as(devKey).post(keysPath(providerId), { name: 'dev key', publicKey: ed25519Key() })).status).toBe(201);
  });

  it('replays an idempotent create', async () => {
    const headers = { 'Idempotency-Key': `ssh-${profile}-1` };
    const body = { name: 'once', publicKey: ed25519Key() };
    const first = await owner.post(keysPath(providerId), body, headers);
    const second = await owner.post(keysPath(providerId), body, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const reused = await owner.post(keysPath(providerId), { ...body, name: 'twice' }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0].code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The query is part of the request: the same key and body for another provider is another request.
    const elsewhere = await owner.post(keysPath(otherProviderId), body, headers);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors[0].code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('describes the routes in /v1/openapi.json', async () => {
    const doc = (await owner.get('/v1/openapi.json')).body;
    const post = doc.paths['/v1/ssh-keys'].post;
    expect(post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'providerId', in: 'query', required: true })]));
    const deref = (s: any): any => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s); // named component schemas
    expect(deref(deref(post.responses['201'].content['application/json'].schema.properties.data).properties.attributes).required).toEqual(
      expect.arrayContaining(['name', 'publicKey', 'fingerprint', 'providerId', 'createdAt']),
    );
    expect(doc.paths['/v1/ssh-keys/{keyId}'].delete.responses).toHaveProperty('204');
  });
});
