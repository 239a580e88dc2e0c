/**
 * Console sessions (DECISIONS 23): opened on active instances (VNC) and servers (IPMI SOL), listed and
 * read without their URL, closed by DELETE, at expiry (a durable timer on the clock tests move) and
 * when the resource stops or is terminated; the URL's token is in the open's answer only.
 */
import { ManualClock } from '../../libs/runtime/src/clock';
import { CONSOLE_SESSION_TTL_MS } from '../../libs/domain/consoles/console-session';
import { eventually } from '../support/wait';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

describe.each<Profile>(['embedded', 'server'])('console sessions (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let providerId: string;
  const tokens: string[] = [];

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-console' })).body.data.id;
  }, 180_000); // an embedded start takes most of a minute on a busy machine
  afterAll(async () => {
    await srv?.stop();
  });

  const activeInstance = async (name: string) => {
    const res = await api.post('/v1/instances', { name, providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' });
    expect(res.status).toBe(202);
    await eventually(() => api.get(`/v1/instances/${res.body.data.id}`), (r) => r.body.data.attributes.status === 'active', 20000);
    return res.body.data.id as string;
  };
  const session = (id: string) => api.get(`/v1/console-sessions/${id}`);
  const closedFor = async (id: string, reason: string) => (await eventually(() => session(id), (r) => r.body.data.attributes.status === 'closed', 20000)).body.data.attributes.closeReason === reason;
  const open = async (path: string) => {
    const res = await api.post(path);
    if (res.status === 201) tokens.push(new URL(res.body.data.attributes.url).searchParams.get('token')!);
    return res;
  };

  it('opens a VNC session on an active instance (201, url once), reads and lists it without the url, closes it (204, then 409)', async () => {
    const instanceId = await activeInstance('console-1');
    const res = await open(`/v1/instances/${instanceId}/console`);
    expect(res.status).toBe(201);
    const { id, type, attributes } = res.body.data;
    expect(type).toBe('console-sessions');
    expect(attributes).toMatchObject({ resourceType: 'instance', resourceId: instanceId, protocol: 'vnc', status: 'open', closedAt: null, closeReason: null });
    expect(Date.parse(attributes.expiresAt) - Date.parse(attributes.createdAt)).toBe(CONSOLE_SESSION_TTL_MS);
    const url = new URL(attributes.url);
    expect(url.protocol).toBe('https:');
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const got = await session(id);
    expect(got.status).toBe(200);
    expect(got.body.data.attributes.url).toBeUndefined();
    expect(got.body.data.attributes).toEqual(Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== 'url')));
    const list = await api.get(`/v1/console-sessions?resourceId=${instanceId}`);
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0].id).toBe(id);
    expect(list.text).not.toContain(url.searchParams.get('token'));
    expect((await api.get('/v1/console-sessions?status=closed')).body.data.map((d: { id: string }) => d.id)).not.toContain(id);

    expect((await api.delete(`/v1/console-sessions/${id}`)).status).toBe(204);
    expect((await session(id)).body.data.attributes).toMatchObject({ status: 'closed', closeReason: 'closed' });
    const again = await api.delete(`/v1/console-sessions/${id}`);
    expect([again.status, again.body.errors[0].code]).toEqual([409, 'INVALID_STATE']);
    // Opening and closing are events on the session's own stream: the audit trail.
    const events = await srv.platform.events.readStream(`console-session-${id}`);
    expect(events.map((e) => [e.type, e.metadata.actor])).toEqual([
      ['consoles.ConsoleSessionOpened.v1', expect.stringContaining('key:')],
      ['consoles.ConsoleSessionClosed.v1', expect.stringContaining('key:')],
    ]);
  });

  it('opens an IPMI serial-over-LAN session on an active server; closes it when the server is deleted', async () => {
    const server = await api.post('/v1/servers', { name: 'db-1', hostname: 'db-1', site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'hourly', role: 'VirtualMachine', provider: providerId });
    expect(server.status).toBe(201);
    const serverId = server.body.data.id;
    await eventually(() => api.get(`/v1/servers/${serverId}`), (r) => r.body.data.attributes.status === 'active', 20000);
    const res = await open(`/v1/servers/${serverId}/console`);
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ resourceType: 'server', resourceId: serverId, protocol: 'ipmi-sol', status: 'open' });
    expect((await api.delete(`/v1/servers/${serverId}`)).status).toBe(204);
    expect(await closedFor(res.body.data.id, 'resource-terminated')).toBe(true);
  });

  it('answers 409 INVALID_STATE on a resource that is not active, 404 on an unknown one', async () => {
    const instanceId = await activeInstance('console-stopped');
    expect((await api.post(`/v1/instances/${instanceId}/actions`, { action: 'stop' })).status).toBe(202);
    await eventually(() => api.get(`/v1/instances/${instanceId}`), (r) => r.body.data.attributes.status === 'stopped', 20000);
    const refused = await api.post(`/v1/instances/${instanceId}/console`);
    expect([refused.status, refused.body.errors[0].code]).toEqual([409, 'INVALID_STATE']);
    expect((await api.post('/v1/instances/nope/console')).status).toBe(404);
    expect((await api.post('/v1/servers/nope/console')).status).toBe(404);
    expect((await session('nope')).status).toBe(404);
  });

  it('closes a session when its instance stops, and one left open at its expiry (durable timer)', async () => {
    const instanceId = await activeInstance('console-2');
    const first = await open(`/v1/instances/${instanceId}/console`);
    const expiring = await open(`/v1/instances/${instanceId}/console`);
    expect([first.status, expiring.status]).toEqual([201, 201]);
    clock.advance(CONSOLE_SESSION_TTL_MS + 1000);
    expect(await closedFor(expiring.body.data.id, 'expired')).toBe(true);
    expect(await closedFor(first.body.data.id, 'expired')).toBe(true);

    const stopped = await open(`/v1/instances/${instanceId}/console`);
    expect(stopped.status).toBe(201);
    expect((await api.post(`/v1/instances/${instanceId}/actions`, { action: 'stop' })).status).toBe(202);
    expect(await closedFor(stopped.body.data.id, 'resource-stopped')).toBe(true);
    await eventually(() => api.get(`/v1/instances/${instanceId}`), (r) => r.body.data.attributes.status === 'stopped', 20000);
    // Closed sessions stay listed.
    expect((await api.get(`/v1/console-sessions?resourceId=${instanceId}&status=closed`)).body.meta.total).toBe(3);
  });

  it('closes a session when its instance is terminated', async () => {
    const instanceId = await activeInstance('console-3');
    const res = await open(`/v1/instances/${instanceId}/console`);
    expect((await api.delete(`/v1/instances/${instanceId}`)).status).toBe(202);
    expect(await closedFor(res.body.data.id, 'resource-terminated')).toBe(true);
  });

  it('keeps test and live sessions apart, and lets a viewer read but not open', async () => {
    const instanceId = await activeInstance('console-4');
    const live = await open(`/v1/instances/${instanceId}/console`);
    // A key of the other mode than the one that opened it.
    const mode = srv.bootstrap.apiKey.startsWith('svc_test_') ? 'live' : 'test';
    const test = srv.as((await api.post('/v1/api-keys', { name: 'other mode', role: 'owner', mode })).body.data.attributes.key);
    expect((await test.get(`/v1/console-sessions/${live.body.data.id}`)).status).toBe(404);
    expect((await test.get('/v1/console-sessions')).body.meta.total).toBe(0);
    expect((await test.post(`/v1/instances/${instanceId}/console`)).status).toBe(404);
    expect((await test.delete(`/v1/console-sessions/${live.body.data.id}`)).status).toBe(404);
    const viewer = srv.as((await api.post('/v1/api-keys', { name: 'viewer', role: 'viewer' })).body.data.attributes.key);
    expect((await viewer.get('/v1/console-sessions')).status).toBe(200);
    expect((await viewer.post(`/v1/instances/${instanceId}/console`)).status).toBe(403);
    expect((await viewer.delete(`/v1/console-sessions/${live.body.data.id}`)).status).toBe(403);
  });

  it('never writes a token to the log of events or the service log', async () => {
    expect(tokens.length).toBeGreaterThanOrEqual(5);
    const log = JSON.stringify(await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 }));
    const logs = srv.logs();
    for (const token of tokens) {
      expect(log).not.toContain(token);
      expect(logs).not.toContain(token);
    }
  });
});
