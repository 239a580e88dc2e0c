import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../libs/config/src/config';
import { Client } from 'pg';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { providersProjection } from '../../projections/providers/providers.projection';

const SECRET = 'sk-live-PLAINTEXT-provider-credential-9f3c1a';
const SECRET2 = 'sk-live-ROTATED-provider-credential-77b2e0';

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe.each<Profile>(['embedded', 'server'])('providers (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: ReturnType<TestServer['as']>;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('creates (201, enabled by default), gets, lists, patches and deletes a provider', async () => {
    const created = await owner.post('/v1/providers', { name: 'provider_baremetal', credentials: { apiKey: SECRET }, region: 'NYC' });
    expect(created.status).toBe(201);
    const { id, type, attributes } = created.body.data;
    expect(type).toBe('providers');
    expect(attributes).toMatchObject({ name: 'provider_baremetal', enabled: true, region: 'NYC', credentialsConfigured: true });
    expect(attributes.createdAt).toBe(attributes.updatedAt);
    // bare metal: layer-2 networking, no block volumes (DECISIONS 14)
    expect(attributes.capabilities).toEqual(['elastic-ips', 'vlans', 'firewalls', 'private-networks', 'network-databases', 'interconnections', 'file-systems', 'databases']);

    const got = await owner.get(`/v1/providers/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);

    const second = await owner.post('/v1/providers', { name: 'provider_multicloud', apiKey: SECRET2, enabled: false });
    expect(second.status).toBe(201);
    expect(second.body.data.attributes).toMatchObject({ enabled: false, region: null, capabilities: ['volumes', 'file-systems', 'buckets', 'kubernetes', 'models'] });

    const list = await owner.get('/v1/providers?sort=name&limit=1');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    expect(list.body.data[0].id).toBe(id);
    expect(list.body.data[0].attributes.capabilities).toEqual(attributes.capabilities);
    expect(list.body.links.next).toContain('page=2');
    const disabled = await owner.get('/v1/providers?enabled=false');
    expect(disabled.body.data.map((p: { id: string }) => p.id)).toEqual([second.body.data.id]);

    const patched = await owner.patch(`/v1/providers/${id}`, { enabled: false, region: 'eu-west-2', name: 'provider_publiccloud' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ name: 'provider_publiccloud', enabled: false, region: 'eu-west-2' });
    // capabilities follow the kind
    expect(patched.body.data.attributes.capabilities).toContain('volumes');
    expect(patched.body.data.attributes.capabilities).not.toContain('vlans');
    expect(Date.parse(patched.body.data.attributes.updatedAt)).toBeGreaterThanOrEqual(Date.parse(attributes.createdAt));

    const del = await owner.delete(`/v1/providers/${second.body.data.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await owner.get(`/v1/providers/${second.body.data.id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/providers/${second.body.data.id}`)).status).toBe(404);
    const after = await owner.get('/v1/providers');
    expect(after.body.data.map((p: { id: string }) => p.id)).toEqual([id]);
  });

  it('describes capabilities in /v1/openapi.json', async () => {
    const doc = (await owner.get('/v1/openapi.json')).body;
    const deref = (s: any): any => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s); // named component schemas
    const attributes = deref(deref(doc.paths['/v1/providers/{id}'].get.responses['200'].content['application/json'].schema.properties.data).properties.attributes);
    expect(attributes.required).toContain('capabilities');
    expect(attributes.properties.capabilities.type).toBe('array');
    expect(attributes.properties.capabilities.items.enum).toEqual(expect.arrayContaining(['elastic-ips', 'vlans', 'volumes', 'kubernetes', 'models']));
    expect(attributes.properties.capabilities.items.enum).toHaveLength(13);
  });

  it("checks a provider's region against its kind's catalog: 422 INVALID_REGION on create and update", async () => {
    const unknown = await owner.post('/v1/providers', { name: 'provider_baremetal', apiKey: SECRET, region: 'atlantis' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].code).toBe('INVALID_REGION');
    // A region of another kind's catalog is unknown to this one.
    const otherKind = await owner.post('/v1/providers', { name: 'provider_baremetal', apiKey: SECRET, region: 'us-east-1' });
    expect(otherKind.status).toBe(422);
    expect(otherKind.body.errors[0].code).toBe('INVALID_REGION');
    const bySlugOrSite = await owner.post('/v1/providers', { name: 'provider_publiccloud', apiKey: SECRET, region: 'us-east-1', enabled: false });
    expect(bySlugOrSite.status).toBe(201);
    const id = bySlugOrSite.body.data.id;
    const badPatch = await owner.patch(`/v1/providers/${id}`, { region: 'NYC' });
    expect(badPatch.status).toBe(422);
    expect(badPatch.body.errors[0].code).toBe('INVALID_REGION');
    // The kept region under a new kind is checked against the new kind's catalog.
    const kindOnly = await owner.patch(`/v1/providers/${id}`, { name: 'provider_baremetal' });
    expect(kindOnly.status).toBe(422);
    expect(kindOnly.body.errors[0].code).toBe('INVALID_REGION');
    expect((await owner.get(`/v1/providers/${id}`)).body.data.attributes).toMatchObject({ name: 'provider_publiccloud', region: 'us-east-1' });
    const both = await owner.patch(`/v1/providers/${id}`, { name: 'provider_baremetal', region: 'NYC' });
    expect(both.status).toBe(200);
    expect(both.body.data.attributes).toMatchObject({ name: 'provider_baremetal', region: 'NYC' });
    expect((await owner.delete(`/v1/providers/${id}`)).status).toBe(204);
  });

  it('answers 400 with pointers for bad bodies and 400 INVALID_QUERY for bad sorts', async () => {
    const bad = await owner.post('/v1/providers', { name: 'aws', region: '' });
    expect(bad.status).toBe(400);
    const pointers = bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    expect(pointers).toEqual(expect.arrayContaining(['/name', '/region']));
    expect(bad.body.errors.every((e: { code: string }) => e.code === 'BAD_REQUEST')).toBe(true);
    const noCreds = await owner.post('/v1/providers', { name: 'provider_baremetal' });
    expect(noCreds.status).toBe(400);
    expect(noCreds.body.errors[0].source.pointer).toBe('/credentials');
    const jsonApi = await owner.post('/v1/providers', { data: { type: 'providers', attributes: { name: 'provider_baremetal', credentials: { apiKey: 1 } } } });
    expect(jsonApi.status).toBe(400);
    expect(jsonApi.body.errors[0].source.pointer).toBe('/data/attributes/credentials/apiKey');
    const patch = await owner.patch('/v1/providers/whatever', { enabled: 'yes' });
    expect(patch.status).toBe(400);
    expect(patch.body.errors[0].source.pointer).toBe('/enabled');
    const sort = await owner.get('/v1/providers?sort=credentials');
    expect(sort.status).toBe(400);
    expect(sort.body.errors[0].code).toBe('INVALID_QUERY');
  });

  it('hides providers of other projects: 404 NOT_FOUND on get, patch and delete; absent from lists', async () => {
    const mine = await owner.post('/v1/providers', { name: 'provider_publiccloud', apiKey: SECRET });
    const admin = srv.as(srv.bootstrap.adminKey);
    const project = await admin.post('/v1/admin/projects', { name: 'tenant two' });
    const other = srv.as(project.body.included[0].attributes.key);
    const id = mine.body.data.id;
    for (const res of [await other.get(`/v1/providers/${id}`), await other.patch(`/v1/providers/${id}`, { enabled: false }), await other.delete(`/v1/providers/${id}`)]) {
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ status: '404', code: 'NOT_FOUND' });
    }
    const list = await other.get('/v1/providers');
    expect(list.body.meta.total).toBe(0);
    expect((await owner.get(`/v1/providers/${id}`)).body.data.attributes.enabled).toBe(true);
  });

  it('stores credentials encrypted: decrypts back, but never in responses, events, logs or the ciphertext store', async () => {
    const created = await owner.post('/v1/providers', { name: 'provider_baremetal', credentials: { apiKey: SECRET } }, { 'Idempotency-Key': 'prov-create-1' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const providers = await srv.platform.projections.collection(providersProjection);
    const { vault } = srv.platform;
    const doc = (await providers.get(id))!;
    expect(doc.credentialsRef).toMatch(/^cred_/);
    expect(await vault.get(doc.credentialsRef!)).toEqual({ apiKey: SECRET });

    const rotated = await owner.patch(`/v1/providers/${id}`, { credentials: { apiKey: SECRET2 } });
    expect(rotated.status).toBe(200);
    const doc2 = (await providers.get(id))!;
    expect(doc2.credentialsRef).not.toBe(doc.credentialsRef);
    expect(await vault.get(doc2.credentialsRef!)).toEqual({ apiKey: SECRET2 });
    expect(await vault.get(doc.credentialsRef!)).toBeNull(); // the replaced secret is shredded

    const texts = [created.text, rotated.text, (await owner.get(`/v1/providers/${id}`)).text, (await owner.get('/v1/providers?limit=100')).text];
    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100_000 });
    texts.push(JSON.stringify(events), srv.logs());
    for (const t of texts) {
      expect(t).not.toContain(SECRET);
      expect(t).not.toContain(SECRET2);
    }
    const provEvents = events.filter((e) => e.type.startsWith('providers.'));
    expect(provEvents.length).toBeGreaterThan(0);
    expect(provEvents.some((e) => (e.data as { credentialsRef?: string }).credentialsRef === doc.credentialsRef)).toBe(true);

    // The ciphertext store: the data dir (PGlite files, key file, vault files) and, on the server profile, the vault table.
    for (const f of walk(srv.dataDir)) {
      const bytes = fs.readFileSync(f);
      expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
      expect(bytes.includes(Buffer.from(SECRET2))).toBe(false);
    }
    const keyFile = path.join(srv.dataDir, 'secrets-credentials.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    if (profile === 'server') {
      const pg = new Client({ connectionString: srv.env.PG_URL });
      await pg.connect();
      try {
        const rows = (await pg.query(`SELECT ref, ciphertext FROM "${srv.env.PG_SCHEMA}".provider_credentials`)).rows as Array<{ ref: string; ciphertext: string }>;
        expect(rows.map((r) => r.ref)).toContain(doc2.credentialsRef);
        for (const r of rows) {
          expect(r.ciphertext).toMatch(/^v1\./);
          expect(r.ciphertext).not.toContain(SECRET);
          expect(Buffer.from(r.ciphertext.split('.')[3], 'base64url').toString('latin1')).not.toContain(SECRET2);
        }
      } finally {
        await pg.end();
      }
    }

    expect((await owner.delete(`/v1/providers/${id}`)).status).toBe(204);
    expect(await vault.get(doc2.credentialsRef!)).toBeNull();
  });
});

describe('provider credential key from config (CREDENTIALS_KEY)', () => {
  const K1 = 'a1'.repeat(32);
  const K2 = Buffer.alloc(32, 7).toString('base64');

  it('encrypts with the configured key (no generated key file) and cannot decrypt under another one', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-credkey-'));
    let srv = await startTestServer('embedded', { DATA_DIR: dataDir, CREDENTIALS_KEY: K1 });
    const created = await srv.as(srv.bootstrap.apiKey).post('/v1/providers', { name: 'provider_baremetal', apiKey: SECRET });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const credentialsOf = async (s: TestServer) => {
      const doc = await (await s.platform.projections.collection(providersProjection)).get(id);
      return s.platform.vault.get(doc!.credentialsRef!);
    };
    expect(await credentialsOf(srv)).toEqual({ apiKey: SECRET });
    expect(fs.existsSync(path.join(dataDir, 'secrets-credentials.key'))).toBe(false);
    await srv.stop({ keepData: true });

    srv = await startTestServer('embedded', { DATA_DIR: dataDir, CREDENTIALS_KEY: K1 });
    expect(await credentialsOf(srv)).toEqual({ apiKey: SECRET });
    await srv.stop({ keepData: true });

    srv = await startTestServer('embedded', { DATA_DIR: dataDir, CREDENTIALS_KEY: K2 });
    try {
      await expect(credentialsOf(srv)).rejects.toThrow();
    } finally {
      await srv.stop();
    }
  });

  it('refuses a key that is not 32 bytes at start-up, naming the setting', () => {
    expect(() => loadConfig({}, { CREDENTIALS_KEY: 'short' })).toThrow(/CREDENTIALS_KEY/);
    expect(() => loadConfig({}, { CREDENTIALS_KEY: 'ab'.repeat(31) })).toThrow(/CREDENTIALS_KEY/);
    expect(loadConfig({}, { CREDENTIALS_KEY: K2 }).credentialsKey).toBe(K2);
  });
});
