import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { openWs, type WsClient } from '../support/ws';

type Api = ReturnType<TestServer['as']>;

/** DECISIONS 20: GET /v1/events/ws (the stream over a WebSocket) and POST /v1/events/tickets. */
describe.each<Profile>(['embedded', 'server'])('event WebSocket (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let live: Api;
  let liveKey: string;
  let testKey: string;
  const open: WsClient[] = [];

  const ws = async (path: string, headers: Record<string, string> = {}) => {
    const c = await openWs(srv.url, path, headers);
    open.push(c);
    return c;
  };
  const keyed = (key: string) => ({ 'X-Service-API-Key': key });
  const newProvider = async (api: Api) => {
    const res = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-ws-secret' });
    expect(res.status).toBe(201);
    const [event] = await srv.platform.events.readStream(`provider-${res.body.data.id}`);
    return event!.position;
  };
  const ticketOf = async (key: string) => {
    const res = await srv.as(key).post('/v1/events/tickets');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ type: 'event-tickets', attributes: { url: `/v1/events/ws?ticket=${res.body.data.attributes.ticket}` } });
    return res.body.data.attributes.ticket as string;
  };
  const codeOf = (c: WsClient) => JSON.parse(c.body).errors[0].code;

  beforeAll(async () => {
    srv = await startTestServer(profile, { EVENT_STREAM_HEARTBEAT_MS: '200' }, { clock });
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    liveKey = (await bootstrap.post('/v1/api-keys', { name: 'live', role: 'owner', mode: 'live' })).body.data.attributes.key;
    testKey = (await bootstrap.post('/v1/api-keys', { name: 'test', role: 'owner', mode: 'test' })).body.data.attributes.key;
    live = srv.as(liveKey);
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('sends each event as {position, event} with secrets stripped, pings, and resumes by position losing and repeating nothing', async () => {
    const path = '/v1/events/ws?type=providers.ProviderRegistered.v1';
    const first = await ws(path, keyed(liveKey));
    expect(first.status).toBe(101);
    const made = [await newProvider(live), await newProvider(live), await newProvider(live)];
    await first.waitFor((c) => c.events().length === 3);
    expect(first.events()[0]![1]).toMatchObject({ specversion: '1.0', type: 'providers.ProviderRegistered.v1', position: made[0], livemode: true });
    expect(JSON.stringify(first.messages)).not.toContain('sk-ws-secret');
    await first.waitFor((c) => c.pings > 0);
    first.close();
    await first.closed;
    made.push(await newProvider(live), await newProvider(live));
    const resumed = await ws(`${path}&after=${first.lastPosition()}`, keyed(liveKey));
    await resumed.waitFor((c) => c.events().length >= 2);
    expect([...first.events(), ...resumed.events()].map(([p]) => p)).toEqual(made);

    // The same resume by a subscribe message on an open socket, which also changes the filter.
    const other = await ws('/v1/events/ws?type=billing.InvoicePaid.v1', keyed(liveKey));
    other.send({ subscribe: { types: ['providers.ProviderRegistered.v1'], after: made[2] } });
    await other.waitFor((c) => c.events().length >= 2);
    expect(other.messages[0]).toEqual({ subscribed: { after: made[2], types: ['providers.ProviderRegistered.v1'], subject: null } });
    expect(other.events().map(([p]) => p)).toEqual(made.slice(3));
  });

  it('keeps a filter that matches nothing resumable with {position} messages', async () => {
    const quiet = await ws('/v1/events/ws?type=billing.InvoicePaid.v1', keyed(liveKey));
    const made = await newProvider(live);
    await quiet.waitFor((c) => (c.lastPosition() ?? 0) >= made);
    expect(quiet.events()).toEqual([]);
  });

  it("shows a test key the test mode's events only, with a key or with its ticket", async () => {
    const byKey = await ws('/v1/events/ws?type=providers', keyed(testKey));
    const byTicket = await ws(`/v1/events/ws?type=providers&ticket=${await ticketOf(testKey)}`);
    const liveSocket = await ws('/v1/events/ws?type=providers', keyed(liveKey));
    expect([byKey.status, byTicket.status, liveSocket.status]).toEqual([101, 101, 101]);
    const liveMade = await newProvider(live);
    const testMade = await newProvider(srv.as(testKey));
    const last = Math.max(liveMade, testMade);
    for (const c of [byKey, byTicket, liveSocket]) await c.waitFor((x) => (x.lastPosition() ?? 0) >= last);
    expect(byKey.events().map(([p, e]) => [p, e.livemode])).toEqual([[testMade, false]]);
    expect(byTicket.events().map(([p]) => p)).toEqual([testMade]);
    expect(liveSocket.events().map(([p]) => p)).toEqual([liveMade]);
  });

  it('takes a ticket once; refuses a forged, expired or other-project ticket; never logs one', async () => {
    const ticket = await ticketOf(liveKey);
    const once = await ws(`/v1/events/ws?ticket=${ticket}`);
    expect(once.status).toBe(101);
    const twice = await ws(`/v1/events/ws?ticket=${ticket}`);
    expect([twice.status, codeOf(twice)]).toEqual([401, 'UNAUTHORIZED']);
    // The redemption is an event: a second API process would find it too.
    expect((await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100_000 })).filter((e) => e.type === 'events.StreamTicketRedeemed.v1' && e.data.projectId === srv.bootstrap.projectId).length).toBeGreaterThanOrEqual(1);

    const fresh = await ticketOf(liveKey);
    const [body, mac] = fresh.slice(4).split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
    const forged = `wst_${Buffer.from(JSON.stringify({ ...claims, m: 'test' })).toString('base64url')}.${mac}`;
    expect((await ws(`/v1/events/ws?ticket=${forged}`)).status).toBe(401);
    expect((await ws(`/v1/events/ws?ticket=${fresh}x`)).status).toBe(401);

    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'elsewhere' });
    expect(project.status).toBe(201);
    const otherKey = project.body.included[0].attributes.key as string;
    // A ticket of this project beside another project's key; a test key's ticket beside a live key.
    expect((await ws(`/v1/events/ws?ticket=${fresh}`, keyed(otherKey))).status).toBe(401);
    expect((await ws(`/v1/events/ws?ticket=${await ticketOf(testKey)}`, keyed(liveKey))).status).toBe(401);
    // The ticket refused beside another key was not spent: it still works alone.
    expect((await ws(`/v1/events/ws?ticket=${fresh}`)).status).toBe(101);

    // A ticket dies with the key that asked for it, within its 60 s.
    const doomedKey = (await live.post('/v1/api-keys', { name: 'doomed', role: 'viewer', mode: 'live' })).body.data;
    const orphan = await ticketOf(doomedKey.attributes.key);
    expect((await live.delete(`/v1/api-keys/${doomedKey.id}`)).status).toBe(204);
    const revoked = await ws(`/v1/events/ws?ticket=${orphan}`);
    expect([revoked.status, codeOf(revoked)]).toEqual([401, 'UNAUTHORIZED']);

    const late = await ticketOf(liveKey);
    clock.advance(61_000);
    const expired = await ws(`/v1/events/ws?ticket=${late}`);
    expect([expired.status, codeOf(expired)]).toEqual([401, 'UNAUTHORIZED']);
    expect(srv.logs()).not.toContain(late.slice(4, 40));
    expect(srv.logs()).not.toContain(ticket.slice(4, 40));
  });

  it('answers 400 to a plain GET, a position beyond the head or a bad filter, 401 without a credential, and an error message to a bad subscribe', async () => {
    const plain = await live.get('/v1/events/ws');
    expect([plain.status, plain.body.errors[0].code]).toEqual([400, 'BAD_REQUEST']);
    const head = await srv.platform.events.headPosition();
    for (const path of [`/v1/events/ws?after=${head + 1000}`, '/v1/events/ws?after=-1', '/v1/events/ws?type=Bad..Type', '/v1/events/ws?nope=1']) {
      const refused = await ws(path, keyed(liveKey));
      expect([path, refused.status, codeOf(refused)]).toEqual([path, 400, 'INVALID_QUERY']);
    }
    const anonymous = await ws('/v1/events/ws');
    expect([anonymous.status, codeOf(anonymous)]).toEqual([401, 'UNAUTHORIZED']);
    expect((await srv.anonymous.post('/v1/events/tickets')).status).toBe(401);

    const c = await ws('/v1/events/ws', keyed(liveKey));
    c.send('not json');
    c.send({ subscribe: { types: ['Bad..Type'] } });
    c.send({ subscribe: { after: head + 1000 } });
    await c.waitFor((x) => x.messages.filter((m) => m.error).length === 3);
    expect(c.messages.map((m) => m.error?.code)).toEqual(['BAD_REQUEST', 'BAD_REQUEST', 'INVALID_QUERY']);
    // Still open and serving after the refusals.
    const made = await newProvider(live);
    await c.waitFor((x) => x.events().some(([p]) => p === made));
  });
});
