import { jobStream } from '../../libs/domain/jobs/events';
import { paymentStream } from '../../libs/domain/billing/payments';
import { deliveryStream } from '../../libs/domain/notifications/events';
import { requireEngine } from '../engines';
import { readTopicUntil } from '../support/kafka';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

type Api = ReturnType<TestServer['as']>;

/**
 * Test mode (DECISIONS 21): keys of either mode, the mode in every event a request (and the work it
 * causes) appends, `livemode` on the topics and webhooks (with the bare project id), and the
 * simulators for test-mode payments. The separation of the two modes' data across every list route
 * is test/e2e/test-mode-separation.e2e.spec.ts.
 */
describe.each<Profile>(['embedded', 'server'])('test mode (%s profile)', (profile) => {
  let srv: TestServer;
  let testKey: Api;
  let liveKey: Api;
  let live: { id: string; key: string };
  let test: { id: string; key: string };
  const providerIds = new Map<Api, string>();
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // Stripe is configured (stripe-mock): live payments go to it, test ones must not.
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', STRIPE_SECRET_KEY: 'sk_test_123', STRIPE_API_URL: requireEngine('STRIPE_MOCK_URL') });
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    const l = await bootstrap.post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    const t = await bootstrap.post('/v1/api-keys', { name: 'test owner', role: 'owner', mode: 'test' });
    expect([l.status, t.status]).toEqual([201, 201]);
    live = { id: l.body.data.id, key: l.body.data.attributes.key };
    test = { id: t.body.data.id, key: t.body.data.attributes.key };
    liveKey = srv.as(live.key);
    testKey = srv.as(test.key);
    // Each mode connects its own provider: a test key does not see the live one (and vice versa).
    for (const api of [liveKey, testKey]) {
      const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-mode' });
      expect(provider.status).toBe(201);
      providerIds.set(api, provider.body.data.id);
    }
  });
  afterAll(async () => {
    await srv?.stop();
    await receiver?.close();
  });

  it('creates keys of the mode asked (svc_live_ / svc_test_), of the creator\'s mode by default, and lists both modes to either', async () => {
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    // The default is the creating key's mode; `environment` is still taken as an alias of `mode`.
    const fromLive = await liveKey.post('/v1/api-keys', { name: 'default from live' });
    const fromTest = await testKey.post('/v1/api-keys', { name: 'default from test' });
    const alias = await testKey.post('/v1/api-keys', { name: 'alias', environment: 'live' });
    expect([fromLive.body.data.attributes, fromTest.body.data.attributes, alias.body.data.attributes].map((a) => [a.mode, a.key.slice(0, 9)])).toEqual([
      ['live', 'svc_live_'],
      ['test', 'svc_test_'],
      ['live', 'svc_live_'],
    ]);
    expect((await testKey.post('/v1/api-keys', { name: 'bad', mode: 'staging' })).status).toBe(400);

    const expected = { [live.id]: 'live', [test.id]: 'test', [fromLive.body.data.id]: 'live', [fromTest.body.data.id]: 'test' };
    for (const api of [liveKey, testKey]) {
      const list = await api.get('/v1/api-keys?limit=100');
      expect(list.status).toBe(200);
      const modes = Object.fromEntries(list.body.data.filter((k: { id: string }) => k.id in expected).map((k: { id: string; attributes: { mode: string } }) => [k.id, k.attributes.mode]));
      expect(modes).toEqual(expected);
      for (const k of list.body.data) expect(k.attributes.mode).toBe(k.attributes.prefix.startsWith('svc_test_') ? 'test' : 'live');
    }
  });

  const createInstance = async (api: Api, name: string) => {
    const res = await api.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name, providerId: providerIds.get(api) });
    expect(res.status).toBe(202);
    await eventually(() => api.get(`/v1/jobs/${res.body.jobId}`), (r) => r.body.data?.attributes.status === 'completed');
    return { id: res.body.data.id as string, jobId: res.body.jobId as string };
  };

  it("stamps the key's mode on every event of a request and of the job it causes; the topic says livemode (server)", async () => {
    const t = await createInstance(testKey, 'test-mode-vm');
    const l = await createInstance(liveKey, 'live-mode-vm');
    // The request's, the dispatcher's and the executor's (later timers, e.g. a status sync, are not this request's work).
    const caused = ['compute.InstanceRequested.v1', 'compute.InstanceProvisioningStarted.v1', 'compute.InstanceProvisioned.v1'];
    const modes = async (stream: string) => (await srv.platform.events.readStream(stream)).filter((e) => !e.type.startsWith('compute.') || caused.includes(e.type)).map((e) => [e.type, e.metadata.mode]);
    for (const [{ id, jobId }, mode] of [[t, 'test'], [l, 'live']] as const) {
      const instanceEvents = await modes(`instance-${id}`);
      const jobEvents = await modes(jobStream(jobId));
      expect(instanceEvents.map(([type]) => type)).toEqual(expect.arrayContaining(['compute.InstanceRequested.v1', 'compute.InstanceProvisioned.v1']));
      expect(jobEvents.map(([type]) => type)).toEqual(expect.arrayContaining(['jobs.JobEnqueued.v1', 'jobs.JobCompleted.v1']));
      for (const [type, m] of [...instanceEvents, ...jobEvents]) expect([type, m]).toEqual([type, mode]);
    }
    if (profile !== 'server') return;
    const streams = { [`instance-${t.id}`]: false, [`instance-${l.id}`]: true };
    const { values } = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'compute', (log) =>
      Object.keys(streams).every((s) => (log.types.get(s) ?? []).includes('compute.InstanceProvisioned.v1')),
    );
    const seen = values.map((v) => JSON.parse(v) as { subject: string; type: string; livemode: unknown; source: string; data: { projectId?: string } }).filter((ce) => ce.subject in streams && caused.includes(ce.type));
    expect(seen.length).toBeGreaterThanOrEqual(4);
    // Both modes' events name the bare project; the mode is `livemode`.
    const project = srv.bootstrap.projectId;
    for (const ce of seen) expect([ce.subject, ce.livemode, ce.source]).toEqual([ce.subject, streams[ce.subject], `/v1/projects/${project}`]);
    for (const ce of seen.filter((x) => x.data.projectId !== undefined)) expect(ce.data.projectId).toBe(project);
  }, 90000);

  it('sends test-mode payments to the simulator although Stripe is configured; live ones to Stripe', async () => {
    const testPay = await testKey.post('/v1/payments/stripe/initialize', { amountCents: 1200 });
    const livePay = await liveKey.post('/v1/payments/stripe/initialize', { amountCents: 1200 });
    expect([testPay.status, livePay.status]).toEqual([201, 201]);
    expect(livePay.body.data.attributes.authorizationUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(testPay.body.data.attributes.authorizationUrl).not.toMatch(/stripe\.com/);
    const driverOf = async (reference: string) => (await srv.platform.events.readStream(paymentStream(reference)))[0].data.driver;
    expect(await driverOf(testPay.body.data.attributes.reference)).toBe('simulator');
    expect(await driverOf(livePay.body.data.attributes.reference)).toBe('stripe');
    // The simulator settles a test payment on verify (stripe-mock's live session stays pending).
    const verified = await testKey.post('/v1/payments/verify', { paymentIntentId: testPay.body.data.attributes.reference });
    expect(verified.status).toBe(200);
    expect(verified.body.data.attributes.status).toBe('succeeded');
    const started = await testKey.post('/v1/billing/checkout/setup-intent', { amountCents: 5000 });
    expect(started.status).toBe(201);
    const checkout = await srv.platform.events.readStream(`checkout-${started.body.data.id}`);
    expect(checkout[0].data.driver).toBe('simulator');
  });

  it("says livemode in outbound webhooks; each mode's endpoints get that mode's events only, and the delivery events carry its mode", async () => {
    const hooks = new Map<Api, string>();
    for (const [api, path] of [[liveKey, '/live'], [testKey, '/test']] as const) {
      const hook = await api.post('/v1/notifications/endpoints', { type: 'webhook', url: `${receiver.url}${path}`, events: ['notification.created'] });
      expect(hook.status).toBe(201);
      hooks.set(api, hook.body.data.id);
    }
    const fromTest = await testKey.post('/v1/notifications', { title: 'from a test key', message: 'test mode' });
    const fromLive = await liveKey.post('/v1/notifications', { title: 'from a live key', message: 'live mode' });
    expect([fromTest.status, fromLive.status]).toEqual([201, 201]);
    for (const [api, path, note, mode] of [[liveKey, '/live', fromLive, 'live'], [testKey, '/test', fromTest, 'test']] as const) {
      // The delivery is recorded after the receiver answered: once it is, nothing else can arrive for this endpoint.
      const deliveries = await eventually(
        () => api.get(`/v1/notifications/endpoints/${hooks.get(api)}/deliveries?limit=100`),
        (r) => r.body.data?.length >= 1 && r.body.data.every((d: { attributes: { status: string } }) => d.attributes.status === 'delivered'),
        30000,
      );
      expect(deliveries.body.data).toHaveLength(1);
      const got = receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as { livemode: unknown; event: { subject: string; source: string; data: { projectId?: string } } });
      expect(got.map((p) => [p.event.subject, p.livemode, p.event.source])).toEqual([[`notification-${note.body.data.id}`, mode === 'live', `/v1/projects/${srv.bootstrap.projectId}`]]);
      const events = await srv.platform.events.readStream(deliveryStream(deliveries.body.data[0].id));
      // One event when the first attempt recorded the delivery; a DeliveryScheduled before it when that attempt was slow.
      expect(events.length).toBeGreaterThanOrEqual(1);
      for (const e of events) expect([e.type, e.metadata.mode]).toEqual([e.type, mode]);
    }
  }, 60000);
});
