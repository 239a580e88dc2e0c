import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { until } from '../support/until';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
type Answer = { status: number; body: { data?: { attributes?: { status?: string } } } };
const status = (s: string) => (r: Answer) => r.body.data?.attributes?.status === s;
const jobStatus = (s: string, attempts?: number) => (r: { body: { data: { attributes: { status: string; attempts: number } } } }) =>
  r.body.data.attributes.status === s && (attempts === undefined || r.body.data.attributes.attempts === attempts);

describe.each<Profile>(['embedded', 'server'])('network database attachments (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: Api;
  let stranger: Api;
  let cloud: string;
  let multi: string;
  let network: string;
  let database: string;

  const activeNetwork = async (a: Api, name: string, cidr: string, region = 'us-east-1') => {
    const res = await a.post('/v1/networking/private-networks', { name, region, cidr });
    expect(res.status).toBe(202);
    await until(() => a.get(`/v1/networking/private-networks/${res.body.data.id}`), status('active'));
    return res.body.data.id as string;
  };
  const activeDatabase = async (a: Api, name: string, region = 'us-east-1') => {
    const res = await a.post('/v1/databases', { name, engine: 'postgres', version: '16', plan: 'pc-t3-medium', region });
    expect(res.status).toBe(202);
    await until(() => a.get(`/v1/databases/${res.body.data.id}`), status('active'));
    return res.body.data.id as string;
  };
  const attach = (networkId: string, body: Record<string, unknown>, query = '') => api.post(`/v1/networking/${networkId}/db${query}`, body);
  const attachmentsOf = (networkId: string, query = '') => api.get(`/v1/networking/${networkId}/db${query}`);
  const attachment = async (networkId: string, id: string) => {
    const list = await attachmentsOf(networkId, '?limit=100');
    const found = list.body.data.find((a: { id: string }) => a.id === id);
    return { status: list.status, body: { data: found } };
  };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-netdb' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-multi' })).body.data.id;
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'network databases elsewhere' });
    stranger = srv.as(other.body.included[0].attributes.key);
    await stranger.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-stranger' });
    [network, database] = await Promise.all([activeNetwork(api, 'backend', '10.20.0.0/24'), activeDatabase(api, 'orders')]);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("attaches a project database to the network at a free address of its range (202, network-database.create) and lists the network's attachments", async () => {
    const res = await attach(network, { databaseId: database, privateIp: '10.20.0.10' });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'network-databases', attributes: { networkId: network, databaseId: database, privateIp: '10.20.0.10', region: 'us-east-1', status: 'creating', providerId: cloud } });
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('network-database.create');
    await until(() => attachment(network, res.body.data.id), status('active'));
    const elsewhere = await activeNetwork(api, 'frontend', '10.30.0.0/24');
    expect((await attachmentsOf(elsewhere)).body.data).toEqual([]);
    const listed = await attachmentsOf(network, '?status=active');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([res.body.data.id]);
    expect(listed.body.meta.total).toBe(1);
    // One attachment per address and per database in a network.
    const other = await activeDatabase(api, 'other');
    const taken = await attach(network, { databaseId: other, privateIp: '10.20.0.10' });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0]).toMatchObject({ code: 'CONFLICT', detail: expect.stringContaining('10.20.0.10') });
    const twice = await attach(network, { databaseId: database, privateIp: '10.20.0.11' });
    expect(twice.status).toBe(409);
    expect(twice.body.errors[0].source.pointer).toBe('/databaseId');
    // Another network may hold the same database and address.
    expect((await attach(elsewhere, { databaseId: database, privateIp: '10.30.0.10' })).status).toBe(202);
  });

  it('two attaches of one address at the same moment: exactly one wins, the other gets 409', async () => {
    const [a, b] = await Promise.all([activeDatabase(api, 'race-a'), activeDatabase(api, 'race-b')]);
    const answers = await Promise.all([attach(network, { databaseId: a, privateIp: '10.20.0.99' }), attach(network, { databaseId: b, privateIp: '10.20.0.99' })]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    const winner = answers.find((r) => r.status === 202)!;
    const events = (await srv.platform.events.readStream(`networkdb-${winner.body.data.id}`)).map((e) => e.type);
    expect(events.filter((t) => t === 'networking.NetworkDatabaseRequested.v1')).toHaveLength(1);
    const at99 = (await attachmentsOf(network, '?limit=100')).body.data.filter((x: { attributes: { privateIp: string } }) => x.attributes.privateIp === '10.20.0.99');
    expect(at99).toHaveLength(1);
  });

  it('refuses addresses outside the range (400 on /privateIp), databases not the project\'s (404 on /databaseId), of another region (422), not active (409), and other projects\' networks (404)', async () => {
    const expectField = async (body: Record<string, unknown>, pointer: string, code: string, statusCode: number) => {
      const res = await attach(network, body);
      expect(res.status).toBe(statusCode);
      expect(res.body.errors[0]).toMatchObject({ code, source: { pointer } });
    };
    await expectField({ databaseId: database, privateIp: '10.21.0.5' }, '/privateIp', 'BAD_REQUEST', 400);
    await expectField({ databaseId: database, privateIp: '10.20.0.0' }, '/privateIp', 'BAD_REQUEST', 400);
    await expectField({ databaseId: database, privateIp: 'fd00::5' }, '/privateIp', 'BAD_REQUEST', 400);
    await expectField({ databaseId: database, privateIp: 'not-an-ip' }, '/privateIp', 'BAD_REQUEST', 400);
    await expectField({ privateIp: '10.20.0.5' }, '/databaseId', 'BAD_REQUEST', 400);
    await expectField({ databaseId: 'no-such-database', privateIp: '10.20.0.5' }, '/databaseId', 'NOT_FOUND', 404);
    const theirs = await stranger.post('/v1/databases', { name: 'theirs', engine: 'postgres', version: '16', plan: 'pc-t3-medium', region: 'us-east-1' });
    await expectField({ databaseId: theirs.body.data.id, privateIp: '10.20.0.5' }, '/databaseId', 'NOT_FOUND', 404);
    await expectField({ databaseId: await activeDatabase(api, 'far', 'eu-west-2'), privateIp: '10.20.0.5' }, '/databaseId', 'INVALID_REGION', 422);
    const pending = await api.post('/v1/databases', { name: 'pending', engine: 'postgres', version: '16', plan: 'pc-t3-medium', region: 'us-east-1', tags: { simulate: 'fail:always' } });
    await expectField({ databaseId: pending.body.data.id, privateIp: '10.20.0.5' }, '/databaseId', 'INVALID_STATE', 409);

    expect((await stranger.post(`/v1/networking/${network}/db`, { databaseId: theirs.body.data.id, privateIp: '10.20.0.5' })).status).toBe(404);
    expect((await stranger.get(`/v1/networking/${network}/db`)).status).toBe(404);
    expect((await attachmentsOf('no-such-network')).status).toBe(404);
    expect((await attach('no-such-network', { databaseId: database, privateIp: '10.20.0.5' })).status).toBe(404);
    // The network's provider runs it: naming another is 404.
    expect((await attach(network, { databaseId: database, privateIp: '10.20.0.5' }, `?providerId=${multi}`)).status).toBe(404);
    expect((await attachmentsOf(network, `?providerId=${multi}`)).status).toBe(404);
    expect((await attachmentsOf(network, `?providerId=${cloud}`)).status).toBe(200);
    expect((await attachmentsOf(network, '?status=weird')).status).toBe(400);
  });

  it('pages the attachments of a network', async () => {
    const net = await activeNetwork(api, 'paged', '10.40.0.0/24');
    const dbs = await Promise.all([activeDatabase(api, 'p1'), activeDatabase(api, 'p2'), activeDatabase(api, 'p3')]);
    for (const [i, id] of dbs.entries()) expect((await attach(net, { databaseId: id, privateIp: `10.40.0.${i + 2}` })).status).toBe(202);
    const page = await attachmentsOf(net, '?limit=2&page=2&sort=privateIp');
    expect(page.body.meta).toMatchObject({ page: 2, limit: 2, total: 3 });
    expect(page.body.data.map((a: { attributes: { privateIp: string } }) => a.attributes.privateIp)).toEqual(['10.40.0.4']);
    expect((await attachmentsOf(net, '?region=us-east-1&limit=100')).body.meta.total).toBe(3);
    expect((await attachmentsOf(net, '?region=eu-west-2')).body.data).toEqual([]);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    const [a, b] = await Promise.all([activeDatabase(api, 'flaky'), activeDatabase(api, 'doomed')]);
    const flaky = await attach(network, { databaseId: a, privateIp: '10.20.0.50', tags: { simulate: 'fail:2' } });
    const done = await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${flaky.body.jobId}`), jobStatus('completed'));
    expect(done.body.data.attributes.attempts).toBe(3);
    await until(() => attachment(network, flaky.body.data.id), status('active'));

    const doomed = await attach(network, { databaseId: b, privateIp: '10.20.0.51', tags: { simulate: 'fail:always' } });
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${doomed.body.jobId}`), jobStatus('failed'));
    const broken = await until(() => attachment(network, doomed.body.data.id), status('error'));
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));
    expect((await api.post(`/v1/jobs/${doomed.body.jobId}/retry`)).status).toBe(200);
    expect((await attachment(network, doomed.body.data.id)).body.data.attributes.status).toBe('creating');
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${doomed.body.jobId}`), jobStatus('failed', 3));
    await until(() => attachment(network, doomed.body.data.id), status('error'));
  });
});
