import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';

type Api = ReturnType<TestServer['as']>;
interface EventItem {
  id: string;
  type: string;
  attributes: { eventType: string; subject: string; position: number; time: string; livemode: boolean; data: Record<string, unknown>; source: string };
}

/** DECISIONS 20: GET /v1/events, the project's domain events from the event index, per mode. */
describe.each<Profile>(['embedded', 'server'])('event history (%s profile)', (profile) => {
  let srv: TestServer;
  let live: Api;
  let test: Api;
  let viewer: Api;
  let liveProvider: string;
  let testProvider: string;
  let testKeyValue: string;

  const list = async (api: Api, query = '') => {
    const res = await api.get(`/v1/events${query}`);
    expect(res.status).toBe(200);
    return res.body as { data: EventItem[]; meta: { total: number; page: number; limit: number; totalPages: number }; links: Record<string, string> };
  };
  /** The list once the index holds `subject` (the index follows the log on its own). */
  const listed = (api: Api, subject: string) => eventually(() => list(api, `?subject=${subject}`), (b) => b.data.length > 0);

  beforeAll(async () => {
    srv = await startTestServer(profile);
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    const l = await bootstrap.post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    const t = await bootstrap.post('/v1/api-keys', { name: 'test owner', role: 'owner', mode: 'test' });
    const v = await bootstrap.post('/v1/api-keys', { name: 'viewer', role: 'viewer', mode: 'live' });
    expect([l.status, t.status, v.status]).toEqual([201, 201, 201]);
    live = srv.as(l.body.data.attributes.key);
    testKeyValue = t.body.data.attributes.key;
    test = srv.as(testKeyValue);
    viewer = srv.as(v.body.data.attributes.key);
    const lp = await live.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-live-secret-value' });
    const tp = await test.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-secret-value' });
    expect([lp.status, tp.status]).toEqual([201, 201]);
    liveProvider = lp.body.data.id;
    testProvider = tp.body.data.id;
    // A second live event, so that pages and orders have something to order.
    const second = await live.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-live-secret-value' });
    expect(second.status).toBe(201);
    await listed(live, `provider-${second.body.data.id}`);
    await listed(live, `provider-${liveProvider}`);
    await listed(test, `provider-${testProvider}`);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('lists the events newest first as CloudEvents (eventType for type), with totals, and no secret', async () => {
    const body = await list(live);
    expect(body.meta).toMatchObject({ page: 1, limit: 20 });
    expect(body.meta.total).toBeGreaterThanOrEqual(body.data.length);
    const positions = body.data.map((e) => e.attributes.position);
    expect(positions).toEqual([...positions].sort((a, b) => b - a));
    const registered = body.data.find((e) => e.attributes.subject === `provider-${liveProvider}`)!;
    expect(registered).toMatchObject({ type: 'events', attributes: { eventType: 'providers.ProviderRegistered.v1', livemode: true, source: `/v1/projects/${srv.bootstrap.projectId}` } });
    expect(registered.id).toBe((await srv.platform.events.readStream(`provider-${liveProvider}`))[0]!.id);
    // The log's own record of what the list shows: the same id, position and type.
    const [recorded] = await srv.platform.events.readStream(`provider-${liveProvider}`);
    expect(registered.attributes.position).toBe(recorded!.position);
    const text = JSON.stringify(body);
    expect(text).not.toContain('sk-live-secret-value');
    expect(text).not.toContain(testKeyValue);
    expect(text).not.toMatch(/keyHash|svc_(live|test)_[0-9A-Za-z]{40}/);
  });

  it("shows a test key the test mode's events only, and a live key the live ones (DECISIONS 21)", async () => {
    const testSide = await list(test, '?limit=100');
    const liveSide = await list(live, '?limit=100');
    const subjects = (b: { data: EventItem[] }) => b.data.map((e) => e.attributes.subject);
    expect(subjects(testSide)).toContain(`provider-${testProvider}`);
    expect(subjects(testSide)).not.toContain(`provider-${liveProvider}`);
    expect(subjects(liveSide)).toContain(`provider-${liveProvider}`);
    expect(subjects(liveSide)).not.toContain(`provider-${testProvider}`);
    expect(testSide.data.every((e) => e.attributes.livemode === false)).toBe(true);
    expect(liveSide.data.every((e) => e.attributes.livemode === true)).toBe(true);
    expect(JSON.stringify(testSide)).not.toContain('sk-test-secret-value');
  });

  it('filters by type (whole, context, or any prefix), subject and time, and pages', async () => {
    const all = (await list(live, '?limit=100')).data;
    expect(all.length).toBeGreaterThanOrEqual(2);
    const byContext = await list(live, '?type=providers&limit=100');
    expect(byContext.data.length).toBeGreaterThan(0);
    expect(byContext.data.every((e) => e.attributes.eventType.startsWith('providers.'))).toBe(true);
    expect(byContext.meta.total).toBe(all.filter((e) => e.attributes.eventType.startsWith('providers.')).length);
    const byPrefix = await list(live, '?type=providers.ProviderReg&limit=100');
    expect(byPrefix.data.map((e) => e.id)).toEqual(all.filter((e) => e.attributes.eventType.startsWith('providers.ProviderReg')).map((e) => e.id));
    expect(byPrefix.data.length).toBeGreaterThan(0);
    const exact = await list(live, '?type=providers.ProviderRegistered.v1');
    expect(exact.data.map((e) => e.attributes.subject)).toContain(`provider-${liveProvider}`);
    expect(exact.data.every((e) => e.attributes.eventType === 'providers.ProviderRegistered.v1')).toBe(true);
    const bySubject = await list(live, `?subject=provider-${liveProvider}`);
    expect(bySubject.data.map((e) => e.attributes.subject)).toEqual([`provider-${liveProvider}`]);

    // Times in any offset, compared as instants: `to` at the provider's event in +02:00 keeps it, one ms before drops it.
    const at = new Date(bySubject.data[0]!.attributes.time).getTime();
    const inOffset = (ms: number) => new Date(ms + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const upTo = await list(live, `?subject=provider-${liveProvider}&to=${encodeURIComponent(inOffset(at))}`);
    expect(upTo.data).toHaveLength(1);
    expect((await list(live, `?subject=provider-${liveProvider}&to=${encodeURIComponent(inOffset(at - 1))}`)).data).toHaveLength(0);
    expect((await list(live, `?subject=provider-${liveProvider}&from=${encodeURIComponent(inOffset(at))}&to=${encodeURIComponent(inOffset(at))}`)).data).toHaveLength(1);
    expect((await list(live, `?subject=provider-${liveProvider}&from=${encodeURIComponent(inOffset(at + 1))}`)).data).toHaveLength(0);

    const page2 = await list(live, '?limit=1&page=2');
    expect(page2.data.map((e) => e.id)).toEqual([all[1]!.id]);
    expect(page2.meta).toMatchObject({ page: 2, limit: 1, total: page2.meta.total });
    const oldest = await list(live, '?sort=time&limit=100');
    expect(oldest.data.map((e) => e.attributes.position)).toEqual([...all].map((e) => e.attributes.position).sort((a, b) => a - b).slice(0, oldest.data.length));
  });

  it('serves the AsyncAPI document of the topics without a key, linked from /docs', async () => {
    const res = await srv.anonymous.get('/v1/asyncapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ asyncapi: '3.0.0', channels: { providers: { address: expect.stringMatching(/\.providers\.events\.v1$/) } } });
    expect(res.body.components.messages['providers.ProviderRegistered.v1'].headers.properties.ce_type).toEqual({ const: 'providers.ProviderRegistered.v1' });
    // Each message's payload is the CloudEvent with its data's schema, generated from the event type.
    expect(res.body.components.messages['providers.ProviderRegistered.v1'].payload.allOf[1].properties.data).toMatchObject({ type: 'object', required: expect.arrayContaining(['providerId']) });
    expect((await srv.anonymous.get('/docs')).text).toContain('href="/v1/asyncapi.json"');
  });

  it('answers 400 INVALID_QUERY for a malformed filter, and lets a viewer read (events:read)', async () => {
    for (const q of ['?type=Not..a.type', '?from=yesterday', '?to=2026-13-01T00:00:00Z', '?limit=101', '?sort=eventType']) {
      const res = await live.get(`/v1/events${q}`);
      expect([q, res.status, res.body.errors?.[0]?.code]).toEqual([q, 400, 'INVALID_QUERY']);
    }
    expect((await viewer.get('/v1/events')).status).toBe(200);
    expect((await srv.anonymous.get('/v1/events')).status).toBe(401);
  });
});
