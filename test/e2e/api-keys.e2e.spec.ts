import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { ManualClock } from '../../libs/runtime/src/clock';


describe.each<Profile>(['embedded', 'server'])('project API keys and bootstrap (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: ReturnType<TestServer['as']>;
  const clock = new ManualClock();

  beforeAll(async () => {
    srv = await startTestServer(profile, {}, { clock });
    owner = srv.as(srv.bootstrap.apiKey);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('writes bootstrap.json once, mode 0600, with a project, a svc_test_ key and a platform-admin key', async () => {
    const file = path.join(srv.dataDir, 'bootstrap.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(srv.bootstrap.projectId).toMatch(/^[0-9a-f-]{36}$/);
    expect(srv.bootstrap.apiKey).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(srv.bootstrap.adminKey).toMatch(/^adm_[0-9A-Za-z]{40}$/);
    expect(srv.logs()).toContain(file);
    expect(srv.logs()).not.toContain(srv.bootstrap.apiKey);
    expect(srv.logs()).not.toContain(srv.bootstrap.adminKey);
  });

  it('creates a key (full key once), lists it by prefix only, and reads its own write at once', async () => {
    const created = await owner.post('/v1/api-keys', { name: 'deploy bot', expiresAt: '2099-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    const { id, type, attributes } = created.body.data;
    expect(type).toBe('api-keys');
    // The creating key (the bootstrap key) is a test key: a created key has its mode unless the body says one.
    expect(attributes.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(attributes.mode).toBe('test');
    expect(attributes.prefix).toBe(attributes.key.slice(0, 12));
    expect(attributes).toMatchObject({ name: 'deploy bot', expiresAt: '2099-01-01T00:00:00.000Z', revoked: false, role: 'admin' });

    const list = await owner.get('/v1/api-keys?sort=-createdAt');
    expect(list.status).toBe(200);
    const listed = list.body.data.find((k: { id: string }) => k.id === id);
    expect(listed.attributes.prefix).toBe(attributes.prefix);
    expect(listed.attributes).not.toHaveProperty('key');
    expect(list.text).not.toContain(attributes.key);
    expect(list.body.meta).toMatchObject({ page: 1, limit: 20 });
    expect(list.body.meta.total).toBeGreaterThanOrEqual(2);

    const viaBearer = await srv.anonymous.get('/v1/api-keys', { Authorization: `Bearer ${attributes.key}` });
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body.data.map((k: { id: string }) => k.id)).toContain(id);
  });

  it('revokes a key: 204, 401 on its next request, still listed with revoked: true, 404 for a second DELETE', async () => {
    const created = await owner.post('/v1/api-keys', { name: 'short-lived' });
    const key = created.body.data.attributes.key as string;
    expect((await srv.as(key).get('/v1/api-keys')).status).toBe(200);
    const del = await owner.delete(`/v1/api-keys/${created.body.data.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const after = await srv.as(key).get('/v1/api-keys');
    expect(after.status).toBe(401);
    expect(after.body.errors[0]).toMatchObject({ status: '401', code: 'UNAUTHORIZED' });
    const list = await owner.get('/v1/api-keys?limit=100');
    expect(list.body.data.find((k: { id: string }) => k.id === created.body.data.id).attributes.revoked).toBe(true);
    const revokedOnly = await owner.get('/v1/api-keys?revoked=true');
    expect(revokedOnly.body.data.map((k: { id: string }) => k.id)).toEqual([created.body.data.id]);
    // DECISIONS 13: a key that is already revoked is gone for DELETE.
    const again = await owner.delete(`/v1/api-keys/${created.body.data.id}`);
    expect(again.status).toBe(404);
    expect(again.body.errors[0].code).toBe('NOT_FOUND');
  });

  it('rejects an expired key on the next request', async () => {
    const expiresAt = new Date(clock.now() + 60_000).toISOString();
    const created = await owner.post('/v1/api-keys', { name: 'expiring', expiresAt });
    expect(created.status).toBe(201);
    const key = created.body.data.attributes.key;
    clock.advance(30_000);
    expect((await srv.as(key).get('/v1/api-keys')).status).toBe(200);
    clock.advance(30_001);
    const refused = await srv.as(key).get('/v1/api-keys');
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0]).toMatchObject({ status: '401', code: 'UNAUTHORIZED' });
  });

  it('answers 400 with one pointer per field, for flat and JSON:API bodies', async () => {
    const flat = await owner.post('/v1/api-keys', { name: '', expiresAt: 'tomorrow' });
    expect(flat.status).toBe(400);
    expect(flat.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/expiresAt', '/name']);
    expect(flat.body.errors.every((e: { code: string }) => e.code === 'BAD_REQUEST')).toBe(true);
    const jsonApi = await owner.post('/v1/api-keys', { data: { type: 'api-keys', attributes: { name: 'x'.repeat(65) } } });
    expect(jsonApi.status).toBe(400);
    expect(jsonApi.body.errors[0].source.pointer).toBe('/data/attributes/name');
    const ok = await owner.post('/v1/api-keys', { data: { type: 'api-keys', attributes: { name: 'via json:api' } } });
    expect(ok.status).toBe(201);
    const past = await owner.post('/v1/api-keys', { name: 'past', expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
  });

  it('keeps projects apart: another project sees none of these keys and gets 404 for their ids', async () => {
    const admin = srv.as(srv.bootstrap.adminKey);
    const project = await admin.post('/v1/admin/projects', { name: 'tenant two' });
    expect(project.status).toBe(201);
    expect(project.body.data).toMatchObject({ type: 'projects', attributes: { name: 'tenant two' } });
    const otherKey = project.body.included[0].attributes.key;
    expect(otherKey).toMatch(/^svc_test_/);
    const other = srv.as(otherKey);
    const mine = await owner.get('/v1/api-keys?limit=100');
    const theirs = await other.get('/v1/api-keys?limit=100');
    expect(theirs.body.data.map((k: { id: string }) => k.id)).toEqual([project.body.included[0].id]);
    const victim = mine.body.data[0].id;
    const del = await other.delete(`/v1/api-keys/${victim}`);
    expect(del.status).toBe(404);
    expect(del.body.errors[0].code).toBe('NOT_FOUND');
    expect((await owner.get('/v1/api-keys?limit=100')).body.data.find((k: { id: string }) => k.id === victim).attributes.revoked).toBe(false);
  });

  it('enforces platform-admin and role boundaries', async () => {
    expect((await owner.post('/v1/admin/projects', { name: 'nope' })).status).toBe(403);
    expect((await srv.as(srv.bootstrap.adminKey).get('/v1/api-keys')).status).toBe(403);
    expect((await srv.anonymous.get('/v1/api-keys')).status).toBe(401);
    const dev = await owner.post('/v1/api-keys', { name: 'dev', role: 'developer' });
    const devClient = srv.as(dev.body.data.attributes.key);
    expect((await devClient.get('/v1/api-keys')).status).toBe(200);
    const devCreate = await devClient.post('/v1/api-keys', { name: 'escalate' });
    expect(devCreate.status).toBe(403);
    expect(devCreate.body.errors[0].code).toBe('FORBIDDEN');
    const viewer = await owner.post('/v1/api-keys', { name: 'viewer', role: 'viewer' });
    expect((await srv.as(viewer.body.data.attributes.key).delete(`/v1/api-keys/${dev.body.data.id}`)).status).toBe(403);
  });

  it('gives a key a role never above its creator\'s: an admin neither creates nor revokes owner keys (DECISIONS 15)', async () => {
    const adminKey = await owner.post('/v1/api-keys', { name: 'an admin' });
    expect(adminKey.body.data.attributes.role).toBe('admin');
    const admin = srv.as(adminKey.body.data.attributes.key);
    const escalate = await admin.post('/v1/api-keys', { name: 'would be owner', role: 'owner' });
    expect(escalate.status).toBe(403);
    expect(escalate.body.errors[0]).toMatchObject({ status: '403', code: 'FORBIDDEN' });
    expect((await owner.get('/v1/api-keys?limit=100')).body.data.map((k: { attributes: { name: string } }) => k.attributes.name)).not.toContain('would be owner');
    for (const role of ['admin', 'developer', 'viewer']) {
      const made = await admin.post('/v1/api-keys', { name: `admin-made ${role}`, role });
      expect(made.status).toBe(201);
      expect(made.body.data.attributes.role).toBe(role);
    }
    const ownerKey = await owner.post('/v1/api-keys', { name: 'second owner', role: 'owner' });
    expect(ownerKey.status).toBe(201);
    const revoke = await admin.delete(`/v1/api-keys/${ownerKey.body.data.id}`);
    expect(revoke.status).toBe(403);
    expect(revoke.body.errors[0].code).toBe('FORBIDDEN');
    expect((await srv.as(ownerKey.body.data.attributes.key).get('/v1/api-keys')).status).toBe(200);
    expect((await owner.delete(`/v1/api-keys/${ownerKey.body.data.id}`)).status).toBe(204);
  });

  it('replays an idempotent create instead of issuing a second key', async () => {
    const headers = { 'Idempotency-Key': `idem-${profile}-1` };
    const first = await owner.post('/v1/api-keys', { name: 'once' }, headers);
    const second = await owner.post('/v1/api-keys', { name: 'once' }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    const reused = await owner.post('/v1/api-keys', { name: 'different' }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0].code).toBe('IDEMPOTENCY_KEY_REUSED');
    const named = (await owner.get('/v1/api-keys?limit=100')).body.data.filter((k: { attributes: { name: string } }) => k.attributes.name === 'once');
    expect(named).toHaveLength(1);
  });

  it('records lastUsedAt (coarsely) from real use', async () => {
    const created = await owner.post('/v1/api-keys', { name: 'used' });
    const key = created.body.data.attributes.key;
    expect((await srv.as(key).get('/v1/api-keys')).status).toBe(200);
    const lastUsed = async () => (await owner.get('/v1/api-keys?limit=100')).body.data.find((k: { id: string }) => k.id === created.body.data.id).attributes.lastUsedAt as string | null;
    const lastUsedAt = await eventually(lastUsed, (at) => at !== null, 10_000);
    expect(lastUsedAt).not.toBeNull();
    expect(Date.parse(lastUsedAt!)).toBeGreaterThan(Date.parse(created.body.data.attributes.createdAt) - 1);
  });

  it('rebuilds the api_keys read model from position 0 and switches to it while serving', async () => {
    const revokedKey = await owner.post('/v1/api-keys', { name: 'pre-rebuild' });
    await owner.delete(`/v1/api-keys/${revokedKey.body.data.id}`);
    const before = await owner.get('/v1/api-keys?limit=100&sort=createdAt');
    const admin = srv.as(srv.bootstrap.adminKey);
    const listing = (async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await owner.get('/v1/api-keys?limit=100&sort=createdAt')).status);
      return statuses;
    })();
    const rebuilt = await admin.post('/v1/admin/projections/api_keys/rebuild');
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.data.attributes.collection).toMatch(/^api_keys_v1_r/);
    expect(rebuilt.body.data.attributes.events).toBeGreaterThan(0);
    expect((await listing).every((s) => s === 200)).toBe(true);
    const after = await owner.get('/v1/api-keys?limit=100&sort=createdAt');
    // lastUsedAt moves with the requests themselves; everything else must be identical.
    const stable = (data: Array<{ id: string; attributes: Record<string, unknown> }>) => data.map(({ id, attributes: { lastUsedAt: _l, ...rest } }) => ({ id, ...rest }));
    expect(stable(after.body.data)).toEqual(stable(before.body.data));
    expect(after.body.data.length).toBeGreaterThan(1);
    expect((await admin.post('/v1/admin/projections/nope/rebuild')).status).toBe(404);
    expect((await owner.post('/v1/admin/projections/api_keys/rebuild')).status).toBe(403);
    const subs = await admin.get('/v1/admin/subscriptions');
    expect(subs.body.data.map((s: { id: string }) => s.id)).toContain('projection:api_keys:v1');
  });

  it('never writes a full key or its pepper into an event, a log line or a response after creation', async () => {
    const created = await owner.post('/v1/api-keys', { name: 'secret-check' });
    const key = created.body.data.attributes.key as string;
    await srv.as(key).get('/v1/api-keys', { Authorization: `Bearer ${key}` });
    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
    const dump = JSON.stringify(events);
    expect(events.some((e) => e.type === 'identity.ApiKeyIssued.v1')).toBe(true);
    for (const secret of [key, srv.bootstrap.apiKey, srv.bootstrap.adminKey]) {
      expect(dump).not.toContain(secret);
      expect(srv.logs()).not.toContain(secret);
    }
    const pepper = JSON.parse(fs.readFileSync(path.join(srv.dataDir, 'secrets.json'), 'utf8')).apiKeyPepper;
    expect(dump).not.toContain(pepper);
    expect(srv.logs()).not.toContain(pepper);
  });
});

describe('restart of the embedded profile', () => {
  it('rebuilds the in-memory read models from the event store: keys still work, revoked ones stay revoked', async () => {
    const first = await startTestServer('embedded');
    const owner = first.as(first.bootstrap.apiKey);
    const keep = await owner.post('/v1/api-keys', { name: 'keep' });
    const gone = await owner.post('/v1/api-keys', { name: 'gone' });
    await owner.delete(`/v1/api-keys/${gone.body.data.id}`);
    await first.stop({ keepData: true });

    const second = await startTestServer('embedded', { DATA_DIR: first.dataDir });
    try {
      expect(second.bootstrap).toEqual(first.bootstrap); // bootstrap ran once
      expect((await second.as(keep.body.data.attributes.key).get('/v1/api-keys')).status).toBe(200);
      expect((await second.as(gone.body.data.attributes.key).get('/v1/api-keys')).status).toBe(401);
      const list = await second.as(first.bootstrap.apiKey).get('/v1/api-keys?limit=100');
      expect(list.body.meta.total).toBe(3);
    } finally {
      await second.stop();
    }
  });
});
