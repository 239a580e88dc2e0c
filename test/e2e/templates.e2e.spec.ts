import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { ed25519Key } from '../support/ssh-keys';

type Client = ReturnType<TestServer['as']>;
type Listed = { id: string; attributes: { name: string } };

describe.each<Profile>(['embedded', 'server'])('instance templates (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Client;
  let other: Client;
  let providerId: string;
  let secondProviderId: string;
  let otherProjectProviderId: string;

  const newProvider = async (c: Client) => {
    const res = await c.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'x' });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const minimal = () => ({ name: 'web', providerId, region: 'NYC', instanceType: 'c2-small-x86' });

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
    providerId = await newProvider(owner);
    secondProviderId = await newProvider(owner);
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'tenant two' });
    other = srv.as(project.body.included[0].attributes.key);
    otherProjectProviderId = await newProvider(other);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('creates a template with defaults (201), readable at once by GET and in the list', async () => {
    const created = await owner.post('/v1/templates', minimal());
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      type: 'instance-templates',
      attributes: {
        name: 'web',
        providerId,
        region: 'NYC',
        instanceType: 'c2-small-x86',
        image: null,
        diskSizeGb: null,
        sshKeyId: null,
        accelerators: null,
        workerCount: 1,
        spot: false,
        tags: [],
        createdAt: expect.any(String),
      },
    });
    const got = await owner.get(`/v1/templates/${created.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const list = await owner.get('/v1/templates');
    expect(list.body.data).toEqual([created.body.data]);
    const events = await srv.platform.events.readStream(`template-${created.body.data.id}`);
    expect(events.map((e) => e.type)).toEqual(['compute.InstanceTemplateCreated.v2']);
    expect(events[0].metadata.projectId).toBe(srv.bootstrap.scope);
  });

  it('stores every field: image, disk, SSH key of the provider, accelerators, workers, spot, tags (object or array)', async () => {
    const key = await owner.post(`/v1/ssh-keys?providerId=${providerId}`, { name: 'deploy', publicKey: ed25519Key() });
    expect(key.status).toBe(201);
    const full = {
      ...minimal(),
      name: 'gpu-trainer',
      image: 'ubuntu_22_04_x64_lts',
      diskSizeGb: 200,
      sshKeyId: key.body.data.id,
      accelerators: 'A100:8',
      workerCount: 4,
      spot: true,
      tags: { team: 'ml', env: 'prod' },
    };
    const created = await owner.post('/v1/templates', full);
    expect(created.status).toBe(201);
    const { providerId: _p, ...rest } = full;
    // DECISIONS 13: answered as the {key, value} array ordered by key, whichever form was sent.
    expect(created.body.data.attributes).toEqual({ ...rest, providerId, tags: [{ key: 'env', value: 'prod' }, { key: 'team', value: 'ml' }], createdAt: expect.any(String) });
    const asArray = await owner.post('/v1/templates', { ...minimal(), name: 'tagged', tags: [{ key: 'b', value: '2' }, { key: 'a', value: '1' }] });
    expect(asArray.status).toBe(201);
    expect(asArray.body.data.attributes.tags).toEqual([{ key: 'a', value: '1' }, { key: 'b', value: '2' }]);
    const viaJsonApi = await owner.post('/v1/templates', { data: { type: 'instance-templates', attributes: { ...minimal(), name: 'jsonapi' } } });
    expect(viaJsonApi.status).toBe(201);
  });

  it('checks the template against its provider catalog: 422 INVALID_REGION, INVALID_PLAN, INVALID_OS', async () => {
    const region = await owner.post('/v1/templates', { ...minimal(), name: 'atlantis', region: 'atlantis' });
    expect([region.status, region.body.errors[0].code, region.body.errors[0].detail]).toEqual([422, 'INVALID_REGION', 'Unknown region/site: atlantis']);
    const plan = await owner.post('/v1/templates', { ...minimal(), instanceType: 'pc-t3-medium' });
    expect([plan.status, plan.body.errors[0].code]).toEqual([422, 'INVALID_PLAN']);
    const notHere = await owner.post('/v1/templates', { ...minimal(), region: 'LAX', instanceType: 'c3-large-arm' });
    expect([notHere.status, notHere.body.errors[0].code]).toEqual([422, 'INVALID_PLAN']);
    const image = await owner.post('/v1/templates', { ...minimal(), image: 'beos-5' });
    expect([image.status, image.body.errors[0].code]).toEqual([422, 'INVALID_OS']);
    expect((await owner.get('/v1/templates?limit=100')).body.data.map((t: Listed) => t.attributes.name)).not.toContain('atlantis');
  });

  it('answers 400 with one pointer per invalid field', async () => {
    const bad = await owner.post('/v1/templates', {
      name: '',
      region: 'r',
      diskSizeGb: 0,
      accelerators: 'lots of gpus',
      workerCount: 0,
      spot: 'yes',
      tags: { k: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.every((e: { code: string }) => e.code === 'BAD_REQUEST')).toBe(true);
    expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(
      ['/accelerators', '/diskSizeGb', '/instanceType', '/name', '/providerId', '/spot', '/tags', '/workerCount'].sort(),
    );
    const fractional = await owner.post('/v1/templates', { ...minimal(), diskSizeGb: 1.5 });
    expect(fractional.status).toBe(400);
    expect(fractional.body.errors[0].source.pointer).toBe('/diskSizeGb');
    const long = await owner.post('/v1/templates', { ...minimal(), name: 'x'.repeat(65) });
    expect(long.status).toBe(400);
    const dupTags = await owner.post('/v1/templates', { ...minimal(), tags: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] });
    expect(dupTags.status).toBe(400);
    expect(dupTags.body.errors[0].source.pointer).toBe('/tags');
  });

  it('requires a provider of the project (404 PROVIDER_NOT_FOUND) and an SSH key of that provider (400 /sshKeyId)', async () => {
    for (const pid of ['no-such-provider', otherProjectProviderId]) {
      const res = await owner.post('/v1/templates', { ...minimal(), providerId: pid });
      expect(res.status).toBe(404);
      expect(res.body.errors[0].code).toBe('PROVIDER_NOT_FOUND');
    }
    const key = await owner.post(`/v1/ssh-keys?providerId=${secondProviderId}`, { name: 'elsewhere', publicKey: ed25519Key() });
    const wrongProvider = await owner.post('/v1/templates', { ...minimal(), sshKeyId: key.body.data.id });
    expect(wrongProvider.status).toBe(400);
    expect(wrongProvider.body.errors[0].source.pointer).toBe('/sshKeyId');
    const unknown = await owner.post('/v1/templates', { data: { type: 'instance-templates', attributes: { ...minimal(), sshKeyId: 'nope' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].source.pointer).toBe('/data/attributes/sshKeyId');
  });

  it('lists with pagination and sorts by name or createdAt', async () => {
    const all = await owner.get('/v1/templates?limit=100');
    const total = all.body.meta.total;
    expect(total).toBeGreaterThanOrEqual(4);
    const byName = (await owner.get('/v1/templates?limit=100&sort=name')).body.data.map((t: Listed) => t.attributes.name);
    expect(byName).toEqual([...byName].sort());
    const desc = (await owner.get('/v1/templates?limit=100&sort=-name')).body.data.map((t: Listed) => t.attributes.name);
    expect(desc).toEqual([...byName].reverse());
    const oldest = await owner.get('/v1/templates?sort=createdAt&limit=1');
    expect(oldest.body.data[0].attributes.name).toBe('web');
    expect(oldest.body.meta).toEqual({ page: 1, limit: 1, total, totalPages: total });
    expect(oldest.body.links.next).toContain('page=2');
    expect((await owner.get('/v1/templates?sort=region')).status).toBe(400);
    expect((await owner.get('/v1/templates?limit=101')).body.errors[0].code).toBe('INVALID_QUERY');
  });

  it('deletes a template: 204, then 404 on GET and DELETE, gone from the list', async () => {
    const created = await owner.post('/v1/templates', { ...minimal(), name: 'doomed' });
    const id = created.body.data.id;
    const del = await owner.delete(`/v1/templates/${id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const got = await owner.get(`/v1/templates/${id}`);
    expect(got.status).toBe(404);
    expect(got.body.errors[0].code).toBe('NOT_FOUND');
    expect((await owner.delete(`/v1/templates/${id}`)).status).toBe(404);
    expect((await owner.get('/v1/templates?limit=100')).body.data.map((t: Listed) => t.id)).not.toContain(id);
    const events = await srv.platform.events.readStream(`template-${id}`);
    expect(events.map((e) => e.type)).toEqual(['compute.InstanceTemplateCreated.v2', 'compute.InstanceTemplateDeleted.v1']);
  });

  it("keeps projects apart: another project's ids are 404 NOT_FOUND and invisible in lists", async () => {
    const mine = await owner.post('/v1/templates', { ...minimal(), name: 'private' });
    const id = mine.body.data.id;
    const get = await other.get(`/v1/templates/${id}`);
    expect(get.status).toBe(404);
    expect(get.body.errors[0].code).toBe('NOT_FOUND');
    const del = await other.delete(`/v1/templates/${id}`);
    expect(del.status).toBe(404);
    expect(del.body.errors[0].code).toBe('NOT_FOUND');
    expect((await other.get('/v1/templates')).body.data).toEqual([]);
    expect((await owner.get(`/v1/templates/${id}`)).status).toBe(200);
  });

  it('lets a viewer read but not write', async () => {
    const viewer = srv.as((await owner.post('/v1/api-keys', { name: 'viewer', role: 'viewer' })).body.data.attributes.key);
    const some = (await owner.get('/v1/templates')).body.data[0].id;
    expect((await viewer.get('/v1/templates')).status).toBe(200);
    expect((await viewer.get(`/v1/templates/${some}`)).status).toBe(200);
    const post = await viewer.post('/v1/templates', minimal());
    expect(post.status).toBe(403);
    expect(post.body.errors[0].code).toBe('FORBIDDEN');
    expect((await viewer.delete(`/v1/templates/${some}`)).status).toBe(403);
    expect((await owner.get(`/v1/templates/${some}`)).status).toBe(200);
  });

  it('replays an idempotent create instead of creating a second template', async () => {
    const headers = { 'Idempotency-Key': `tpl-${profile}-1` };
    const body = { ...minimal(), name: 'once' };
    const first = await owner.post('/v1/templates', body, headers);
    const second = await owner.post('/v1/templates', body, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    const named = (await owner.get('/v1/templates?limit=100')).body.data.filter((t: Listed) => t.attributes.name === 'once');
    expect(named).toHaveLength(1);
    expect((await owner.post('/v1/templates', { ...body, name: 'other' }, headers)).status).toBe(422);
  });

  it('describes the routes in /v1/openapi.json', async () => {
    const doc = (await owner.get('/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/templates'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/v1/templates/{id}'])).toEqual(expect.arrayContaining(['get', 'delete']));
    const deref = (s: any): any => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s); // named component schemas
    const attrs = deref(deref(doc.paths['/v1/templates/{id}'].get.responses['200'].content['application/json'].schema.properties.data).properties.attributes);
    expect(Object.keys(attrs.properties)).toEqual(
      expect.arrayContaining(['name', 'providerId', 'region', 'instanceType', 'image', 'diskSizeGb', 'sshKeyId', 'accelerators', 'workerCount', 'spot', 'tags', 'createdAt']),
    );
  });
});
