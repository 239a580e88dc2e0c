import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { databasesProjection } from '../../projections/databases/databases.projection';
import { until } from '../support/until';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

describe.each<Profile>(['embedded', 'server'])('managed databases, a declared job-backed resource (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let multi: string;
  const db = { name: 'orders', engine: 'postgres', version: '16', plan: 'pc-t3-medium', region: 'us-east-1' };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-db' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-multi' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const get = (id: string) => api.get(`/v1/databases/${id}`);
  const status = (s: string) => (r: { body: { data?: { attributes?: { status?: string } } } }) => r.body.data?.attributes?.status === s;
  const jobStatus = (s: string, attempts?: number) => (r: { body: { data: { attributes: { status: string; attempts: number } } } }) =>
    r.body.data.attributes.status === s && (attempts === undefined || r.body.data.attributes.attempts === attempts);

  it('creates a database as a job (202, database.create) with host and port from the provider; the password is shown once and kept in the vault', async () => {
    const res = await api.post('/v1/databases', db);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'databases', attributes: { ...db, status: 'creating', providerId: cloud, username: 'admin', host: null, port: null, errorMessage: null } });
    const password: string = res.body.data.attributes.password;
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('database.create');
    const id = res.body.data.id;
    const ready = await until(() => get(id), status('active'));
    expect(ready.body.data.attributes).toMatchObject({ host: expect.stringContaining('.db.us-east-1.'), port: 5432 });
    expect(ready.body.data.attributes.password).toBeUndefined();
    // The vault reference is the service's own: not shown; the vault holds the credential.
    expect(ready.body.data.attributes.credentialRef).toBeUndefined();
    const docs = await srv.platform.projections.collection(databasesProjection);
    expect(await srv.platform.vault.get((await docs.get(id))!.credentialRef!)).toEqual({ username: 'admin', password });

    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
    expect(events.some((e) => e.streamId === `database-${id}`)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(password);
    expect(srv.logs()).not.toContain(password);
    expect(JSON.stringify((await api.get('/v1/databases?limit=100')).body)).not.toContain(password);
    expect(JSON.stringify((await api.get(`/v1/jobs/${res.body.jobId}`)).body)).not.toContain(password);
    // Redis: its own user name and port.
    const redis = await api.post('/v1/databases', { ...db, name: 'cache', engine: 'redis', version: '7.2' });
    expect(redis.body.data.attributes.username).toBe('default');
    expect((await until(() => get(redis.body.data.id), status('active'))).body.data.attributes.port).toBe(6379);
  });

  it('lists the versions per engine; refuses a provider without databases', async () => {
    const all = await api.get('/v1/databases/versions?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.data.map((v: { attributes: { engine: string; version: string } }) => `${v.attributes.engine} ${v.attributes.version}`)).toEqual(['postgres 15', 'postgres 16', 'mysql 8.0', 'mysql 8.4', 'redis 7.2']);
    const mysql = await api.get('/v1/databases/versions?engine=mysql');
    expect(mysql.body.data.map((v: { attributes: { version: string } }) => v.attributes.version)).toEqual(['8.0', '8.4']);
    expect((await api.get('/v1/databases/versions?engine=oracle')).status).toBe(400);
    const unsupported = await api.get(`/v1/databases/versions?providerId=${multi}`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
  });

  it('refuses bad input: 400 with the field, 422 for catalog misses, 400 UNSUPPORTED_PROVIDER, 404 for another project', async () => {
    const expectField = async (body: unknown, pointer: string, status = 400, code?: string) => {
      const res = await api.post('/v1/databases', body);
      expect(res.status).toBe(status);
      expect(res.body.errors[0].source?.pointer).toBe(pointer);
      if (code) expect(res.body.errors[0].code).toBe(code);
    };
    await expectField({ ...db, name: '' }, '/name');
    await expectField({ ...db, name: 'x'.repeat(65) }, '/name');
    await expectField({ ...db, engine: 'oracle' }, '/engine');
    await expectField({ ...db, version: '9.6' }, '/version');
    await expectField({ ...db, engine: 'redis' }, '/version');
    await expectField({ ...db, plan: undefined }, '/plan');
    await expectField({ ...db, plan: 'no-such-plan' }, '/plan', 422, 'INVALID_PLAN');
    await expectField({ ...db, plan: 'mc-standard-2' }, '/plan', 422, 'INVALID_PLAN');
    await expectField({ ...db, plan: 'pc-i4i-2xlarge', region: 'eu-west-2' }, '/plan', 422, 'INVALID_PLAN');
    const region = await api.post('/v1/databases', { ...db, region: 'mars-1' });
    expect(region.status).toBe(422);
    expect(region.body.errors[0].code).toBe('INVALID_REGION');
    const unsupported = await api.post(`/v1/databases?providerId=${multi}`, db);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');

    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'databases elsewhere' });
    const stranger = srv.as(other.body.included[0].attributes.key);
    const mine = await api.post('/v1/databases', { ...db, name: 'mine' });
    expect((await stranger.get(`/v1/databases/${mine.body.data.id}`)).status).toBe(404);
    expect((await stranger.delete(`/v1/databases/${mine.body.data.id}`)).status).toBe(404);
    expect((await stranger.get('/v1/databases')).body.data).toEqual([]);
    expect((await api.get(`/v1/databases/${mine.body.data.id}?providerId=${multi}`)).status).toBe(404);
    expect((await api.get('/v1/databases/no-such-db')).status).toBe(404);
  });

  it('deletes as a job (202, database.delete): deleting until done, then 404; not while creating', async () => {
    const created = await api.post('/v1/databases', { ...db, name: 'temp' });
    const id = created.body.data.id;
    await until(() => get(id), status('active'));
    const del = await api.delete(`/v1/databases/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('deleting');
    expect(del.body.data.attributes.password).toBeUndefined();
    expect((await api.get(`/v1/jobs/${del.body.jobId}`)).body.data.attributes.type).toBe('database.delete');
    await until(() => get(id), (r) => r.status === 404);
    const stuck = await api.post('/v1/databases', { ...db, name: 'stuck', tags: { simulate: 'fail:always' } });
    expect((await api.delete(`/v1/databases/${stuck.body.data.id}`)).status).toBe(409);
  });

  it('pages and filters the list by status, region and provider', async () => {
    const far = await api.post('/v1/databases', { ...db, name: 'far', region: 'eu-west-2' });
    await until(() => get(far.body.data.id), status('active'));
    const page = await api.get('/v1/databases?limit=1&page=2&sort=name');
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta).toMatchObject({ page: 2, limit: 1 });
    expect(page.body.meta.total).toBeGreaterThanOrEqual(2);
    expect((await api.get('/v1/databases?region=eu-west-2&limit=100')).body.data.map((d: { id: string }) => d.id)).toEqual([far.body.data.id]);
    const active = await api.get('/v1/databases?status=active&limit=100');
    expect(active.body.data.length).toBeGreaterThanOrEqual(1);
    expect(active.body.data.every((d: { attributes: { status: string } }) => d.attributes.status === 'active')).toBe(true);
    expect((await api.get(`/v1/databases?providerId=${multi}`)).body.data).toEqual([]);
    expect((await api.get(`/v1/databases?providerId=${cloud}&limit=100`)).body.meta.total).toBe((await api.get('/v1/databases?limit=100')).body.meta.total);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    const flaky = await api.post('/v1/databases', { ...db, name: 'flaky', tags: { simulate: 'fail:2' } });
    const done = await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${flaky.body.jobId}`), jobStatus('completed'));
    expect(done.body.data.attributes.attempts).toBe(3);
    await until(() => get(flaky.body.data.id), status('active'));

    const doomed = await api.post('/v1/databases', { ...db, name: 'doomed', tags: { simulate: 'fail:always' } });
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${doomed.body.jobId}`), jobStatus('failed'));
    const broken = await until(() => get(doomed.body.data.id), status('error'));
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));
    expect((await api.post(`/v1/jobs/${doomed.body.jobId}/retry`)).status).toBe(200);
    expect((await get(doomed.body.data.id)).body.data.attributes.status).toBe('creating');
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${doomed.body.jobId}`), jobStatus('failed', 3));
    await until(() => get(doomed.body.data.id), status('error'));
    // A database in error may be deleted; the simulate tag fails its every operation, so that job fails too and leaves it in error.
    const del = await api.delete(`/v1/databases/${doomed.body.data.id}`);
    expect(del.status).toBe(202);
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${del.body.jobId}`), jobStatus('failed', 3));
    await until(() => get(doomed.body.data.id), status('error'));
  });

  // Last: a second provider makes every create without providerId ambiguous.
  it('takes providerId from the create body as well as the query when several providers support databases (DECISIONS 14)', async () => {
    const second = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-db-2' })).body.data.id;
    const ambiguous = await api.post('/v1/databases', { ...db, name: 'which' });
    expect([ambiguous.status, ambiguous.body.errors[0].source]).toEqual([400, { parameter: 'providerId' }]);

    const inBody = await api.post('/v1/databases', { ...db, name: 'in-body', providerId: second });
    expect(inBody.status).toBe(202);
    expect(inBody.body.data.attributes).toMatchObject({ name: 'in-body', providerId: second });
    const inQuery = await api.post(`/v1/databases?providerId=${cloud}`, { ...db, name: 'in-query' });
    expect([inQuery.status, inQuery.body.data.attributes.providerId]).toEqual([202, cloud]);
    const both = await api.post(`/v1/databases?providerId=${second}`, { ...db, name: 'both', providerId: second });
    expect([both.status, both.body.data.attributes.providerId]).toEqual([202, second]);
    const differ = await api.post(`/v1/databases?providerId=${cloud}`, { ...db, name: 'differ', providerId: second });
    expect([differ.status, differ.body.errors[0].source]).toEqual([400, { pointer: '/providerId' }]);
    const unsupported = await api.post('/v1/databases', { ...db, name: 'multi', providerId: multi });
    expect([unsupported.status, unsupported.body.errors[0].code]).toEqual([400, 'UNSUPPORTED_PROVIDER']);
    await until(() => get(inBody.body.data.id), status('active'));
  });
});
