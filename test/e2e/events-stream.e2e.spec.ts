import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { openSse, type SseClient } from '../support/sse';

type Api = ReturnType<TestServer['as']>;

/** DECISIONS 20: GET /v1/events/stream, the project's events live over server-sent events. */
describe.each<Profile>(['embedded', 'server'])('event stream (%s profile)', (profile) => {
  let srv: TestServer;
  let live: Api;
  let test: Api;
  let liveKey: string;
  let testKey: string;
  const open: SseClient[] = [];

  const sse = async (key: string, path: string, headers: Record<string, string> = {}) => {
    const c = await openSse(srv.url, path, { 'X-Service-API-Key': key, ...headers });
    open.push(c);
    return c;
  };
  const newProvider = async (api: Api) => {
    const res = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-stream-secret' });
    expect(res.status).toBe(201);
    const [event] = await srv.platform.events.readStream(`provider-${res.body.data.id}`);
    return { id: res.body.data.id as string, position: event!.position };
  };

  beforeAll(async () => {
    // Keep-alive every 200 ms instead of 15 s, so the quiet-filter frames come within a test.
    srv = await startTestServer(profile, { EVENT_STREAM_HEARTBEAT_MS: '200' });
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    const l = await bootstrap.post('/v1/api-keys', { name: 'live', role: 'owner', mode: 'live' });
    const t = await bootstrap.post('/v1/api-keys', { name: 'test', role: 'owner', mode: 'test' });
    liveKey = l.body.data.attributes.key;
    testKey = t.body.data.attributes.key;
    live = srv.as(liveKey);
    test = srv.as(testKey);
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(async () => {
    // A reader left open does not hold the stop: the API ends its streams (EventStreams.onModuleDestroy).
    const dangling = await openSse(srv.url, '/v1/events/stream', { 'X-Service-API-Key': liveKey });
    expect(dangling.status).toBe(200);
    await srv?.stop();
    await dangling.closed;
  });

  it('starts at the next event and sends each as `id: <position>` and `data: <CloudEvent>`, secrets stripped', async () => {
    const before = await newProvider(live);
    const s = await sse(liveKey, '/v1/events/stream?type=providers');
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(s.headers['x-request-id']).toBeDefined();
    const made = await newProvider(live);
    await s.waitFor((c) => c.events().length > 0);
    const [[position, event]] = s.events();
    expect(position).toBe(made.position);
    expect(event).toMatchObject({ specversion: '1.0', type: 'providers.ProviderRegistered.v1', subject: `provider-${made.id}`, position: made.position, livemode: true });
    expect(s.events().map(([p]) => p)).not.toContain(before.position);
    expect(JSON.stringify(s.frames)).not.toContain('sk-stream-secret');
  });

  it('loses and repeats nothing when a client reconnects with Last-Event-ID or ?after=', async () => {
    const first = await sse(liveKey, '/v1/events/stream?type=providers.ProviderRegistered.v1');
    const made = [await newProvider(live), await newProvider(live), await newProvider(live)];
    await first.waitFor((c) => c.events().length === 3);
    first.close();
    await first.closed;
    made.push(await newProvider(live), await newProvider(live), await newProvider(live));
    const byHeader = await sse(liveKey, '/v1/events/stream?type=providers.ProviderRegistered.v1', { 'Last-Event-ID': first.lastId! });
    const byQuery = await sse(liveKey, `/v1/events/stream?type=providers.ProviderRegistered.v1&after=${first.lastId}`);
    await byHeader.waitFor((c) => c.events().length >= 3);
    await byQuery.waitFor((c) => c.events().length >= 3);
    const seen = [...first.events(), ...byHeader.events()].map(([p]) => p);
    expect(seen).toEqual(made.map((m) => m.position));
    expect(byQuery.events().map(([p]) => p)).toEqual(byHeader.events().map(([p]) => p));
  });

  it('keeps a filter that matches nothing resumable: id-only frames at the position reached, and heartbeat comments', async () => {
    const s = await sse(liveKey, '/v1/events/stream?type=billing.InvoicePaid.v1');
    const made = await newProvider(live);
    await s.waitFor((c) => Number(c.lastId ?? 0) >= made.position);
    await s.waitFor((c) => c.frames.some((f) => f.comments.includes('heartbeat')));
    expect(s.events()).toEqual([]);
    expect(s.frames.filter((f) => f.id !== undefined).every((f) => f.data === undefined)).toBe(true);
  });

  it("shows a test key the test mode's events only (DECISIONS 21)", async () => {
    const t = await sse(testKey, '/v1/events/stream?type=providers');
    const l = await sse(liveKey, '/v1/events/stream?type=providers');
    const liveMade = await newProvider(live);
    const testMade = await newProvider(test);
    const last = Math.max(liveMade.position, testMade.position);
    await t.waitFor((c) => Number(c.lastId ?? 0) >= last);
    await l.waitFor((c) => Number(c.lastId ?? 0) >= last);
    expect(t.events().map(([p, e]) => [p, e.livemode])).toEqual([[testMade.position, false]]);
    expect(l.events().map(([p]) => p)).toEqual([liveMade.position]);
  });

  it('answers 400 INVALID_QUERY for a position beyond the head or a malformed one, 401 without a key', async () => {
    const head = await srv.platform.events.headPosition();
    for (const [path, headers] of [
      [`/v1/events/stream?after=${head + 1000}`, {}],
      [`/v1/events/stream?from=${head + 1000}`, {}],
      ['/v1/events/stream', { 'Last-Event-ID': String(head + 1000) }],
      ['/v1/events/stream', { 'Last-Event-ID': 'abc' }],
      ['/v1/events/stream?after=-1', {}],
      ['/v1/events/stream?type=Bad..Type', {}],
    ] as const) {
      const res = await sse(liveKey, path, headers);
      expect([path, res.status, JSON.parse(res.body).errors[0].code]).toEqual([path, 400, 'INVALID_QUERY']);
    }
    expect((await openSse(srv.url, '/v1/events/stream')).status).toBe(401);
    // At the head itself: accepted, and starts at the next event.
    expect((await sse(liveKey, `/v1/events/stream?after=${head}`)).status).toBe(200);
  });

});
