import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { startSmtpSink, type SmtpSink } from '../support/smtp';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

type Api = ReturnType<TestServer['as']>;
const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id);

describe.each<Profile>(['embedded', 'server'])('notifications and webhook delivery (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: Api;
  let other: Api;
  let receiver: WebhookReceiver;
  let smtp: SmtpSink;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    smtp = await startSmtpSink();
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: smtp.url }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `notify-other-${profile}` });
    expect(project.status).toBe(201);
    other = srv.as(project.body.included[0].attributes.key);
  });
  afterAll(async () => {
    await srv?.stop();
    await receiver?.close();
    await smtp?.close();
  });

  const deliveries = (endpointId: string) => api.get(`/v1/notifications/endpoints/${endpointId}/deliveries?limit=100`);
  const webhook = (path: string, events: string[], extra: Record<string, unknown> = {}) => api.post('/v1/notifications/endpoints', { type: 'webhook', url: `${receiver.url}${path}`, events, ...extra });

  it('creates, lists, reads, marks read (one and all) and deletes notifications (one and all)', async () => {
    const created = await api.post('/v1/notifications', { title: 'Maintenance', message: 'us-east-1 on Sunday' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ type: 'notifications', attributes: { title: 'Maintenance', message: 'us-east-1 on Sunday', type: 'info', read: false, readAt: null } });
    const second = await api.post('/v1/notifications', { title: 'Quota', message: 'at 90%', type: 'warning' });
    const third = await api.post('/v1/notifications', { title: 'Done', message: 'import finished', type: 'success' });
    expect((await api.post('/v1/notifications', { title: '', message: 'x' })).status).toBe(400);
    expect((await api.post('/v1/notifications', { title: 't', message: 'x'.repeat(5001) })).status).toBe(400);
    expect((await api.post('/v1/notifications', { title: 't', message: 'm', type: 'fatal' })).body.errors[0].source.pointer).toBe('/type');

    const listed = await api.get('/v1/notifications?limit=2');
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(ids(listed.body)).toEqual([third.body.data.id, second.body.data.id]);

    const marked = await api.patch(`/v1/notifications/${created.body.data.id}`, { read: true });
    expect(marked.status).toBe(200);
    expect(marked.body.data.attributes).toMatchObject({ read: true, readAt: expect.any(String) });
    expect(ids((await api.get('/v1/notifications?read=false')).body).sort()).toEqual([second.body.data.id, third.body.data.id].sort());
    const all = await api.patch('/v1/notifications', {});
    expect(all.status).toBe(200);
    expect(all.body.meta.updated).toBe(2);
    expect((await api.get('/v1/notifications?read=false')).body.meta.total).toBe(0);

    expect((await api.delete(`/v1/notifications/${created.body.data.id}`)).status).toBe(204);
    expect((await api.get(`/v1/notifications/${created.body.data.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/notifications/${created.body.data.id}`)).status).toBe(404);
    expect((await api.delete('/v1/notifications')).status).toBe(204);
    expect((await api.get('/v1/notifications')).body.meta.total).toBe(0);
  });

  it('publishes the event names generated from the event catalogue, paginated', async () => {
    const names = await api.get('/v1/notifications/events?limit=100');
    expect(names.status).toBe(200);
    const all: string[] = [];
    for (let page = 1; page <= names.body.meta.totalPages; page++) all.push(...ids((await api.get(`/v1/notifications/events?limit=100&page=${page}`)).body));
    expect(all).toEqual(expect.arrayContaining(['instance.created', 'instance.stopped', 'job.failed', 'notification.created', 'volume.created', 'ticket.opened']));
    expect(all.every((n) => /^[a-z_]+\.[a-z_]+$/.test(n))).toBe(true);
    // a delivery's own bookkeeping is not subscribable
    expect(all.filter((n) => n.startsWith('delivery') || n.includes('attempt_succeeded'))).toEqual([]);
    expect((await api.get('/v1/notifications/events?resource=job')).body.data.map((d: { attributes: { action: string } }) => d.attributes.action)).toContain('failed');
    expect((await api.get('/v1/notifications/events?sort=bogus')).status).toBe(400);
  });

  it('validates endpoints, returns the signing secret once and keeps it out of events, reads and logs', async () => {
    const bad = await webhook('/x', ['instance.created', 'instance.exploded']);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ code: 'BAD_REQUEST', source: { pointer: '/events/1' }, detail: expect.stringContaining('instance.exploded') })]);
    expect((await api.post('/v1/notifications/endpoints', { type: 'webhook', events: ['*'] })).body.errors[0].source.pointer).toBe('/url');
    expect((await api.post('/v1/notifications/endpoints', { type: 'email', events: ['*'] })).body.errors[0].source.pointer).toBe('/email');
    expect((await webhook('/x', ['*'], { secret: 'not-a-secret' })).body.errors[0].source.pointer).toBe('/secret');

    const created = await webhook('/secret-check', ['job.failed']);
    expect(created.status).toBe(201);
    const secret = created.body.data.attributes.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.data.attributes).toMatchObject({ type: 'webhook', url: `${receiver.url}/secret-check`, email: null, events: ['job.failed'], enabled: true });
    const got = await api.get(`/v1/notifications/endpoints/${created.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(secret);
    expect(got.body.data.attributes).not.toHaveProperty('secret');
    expect((await api.get('/v1/notifications/endpoints?limit=100')).text).not.toContain(secret);
    const stream = await srv.platform.events.readStream(`nendpoint-${created.body.data.id}`);
    expect(JSON.stringify(stream)).not.toContain(secret);
    expect(JSON.stringify(stream)).toContain('secretRef');
    expect(srv.logs()).not.toContain(secret);

    const given = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const own = await webhook('/own-secret', ['*'], { secret: given, enabled: false });
    expect(own.body.data.attributes).toMatchObject({ secret: given, enabled: false });
    expect(srv.logs()).not.toContain(given);
    expect((await api.delete(`/v1/notifications/endpoints/${own.body.data.id}`)).status).toBe(204);
    expect((await api.get(`/v1/notifications/endpoints/${own.body.data.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/notifications/endpoints/${created.body.data.id}`)).status).toBe(204);
  });

  it('sends job.failed of an instance that fails for good to a webhook (signed, verified by standardwebhooks) and by email over SMTP', async () => {
    const hook = await webhook('/jobs', ['job.failed']);
    const secret = hook.body.data.attributes.secret as string;
    const mail = await api.post('/v1/notifications/endpoints', { type: 'email', email: 'ops@example.com', events: ['job.failed', 'instance.created'] });
    expect(mail.status).toBe(201);
    expect(mail.body.data.attributes).toMatchObject({ type: 'email', email: 'ops@example.com', url: null, secret: null });

    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-123' });
    const created = await api.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'doomed', providerId: provider.body.data.id, tags: { simulate: 'fail:always' } });
    expect(created.status).toBe(202);
    const jobId = created.body.jobId as string;
    // Its retries pass on the clock.
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${jobId}`), (r) => r.body.data.attributes.status === 'failed');

    const [delivered] = await receiver.waitFor('/jobs', 1, 30000);
    const payload = new Webhook(secret).verify(delivered.body, delivered.headers) as { type: string; data: { jobId: string; attempts: number } };
    expect(payload).toMatchObject({ type: 'job.failed', data: { jobId, attempts: 3 } });
    expect(delivered.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivered.body, delivered.headers)).toThrow();

    const failedMail = await smtp.waitFor((m) => m.subject === 'Notification: job.failed' && (m.text ?? '').includes(jobId), 30000);
    expect(failedMail.to).toMatchObject({ text: 'ops@example.com' });
    await smtp.waitFor((m) => m.subject === 'Notification: instance.created' && (m.text ?? '').includes(created.body.data.id));
    // only job.failed reached the webhook: the instance's other events were not subscribed
    expect(receiver.received.filter((r) => r.path === '/jobs').map((r) => JSON.parse(r.body).type)).toEqual(['job.failed']);

    const listed = await eventually(() => deliveries(hook.body.data.id), (r) => r.body.data[0]?.attributes.status === 'delivered');
    expect(listed.body.data[0].attributes).toMatchObject({ eventName: 'job.failed', webhookId: delivered.headers['webhook-id'], attempts: [expect.objectContaining({ attempt: 1, success: true, statusCode: 200 })] });

    const tested = await api.post('/v1/notifications/test');
    expect(tested.status).toBe(200);
    expect(tested.body.data.type).toBe('notification-test');
    expect(tested.body.data.attributes.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ endpointId: hook.body.data.id, type: 'webhook', success: true }),
        expect.objectContaining({ endpointId: mail.body.data.id, type: 'email', success: true }),
      ]),
    );
    const [, probe] = await receiver.waitFor('/jobs', 2);
    expect(new Webhook(secret).verify(probe.body, probe.headers)).toMatchObject({ type: 'notification.test' });
    await api.delete(`/v1/notifications/endpoints/${hook.body.data.id}`);
    await api.delete(`/v1/notifications/endpoints/${mail.body.data.id}`);
  });

  it('retries a failing webhook with backoff on the clock: failed twice, then acknowledged once, the same webhook-id on all three attempts', async () => {
    const hook = await webhook('/flaky', ['notification.created']);
    receiver.failNext('/flaky', 2);
    const note = await api.post('/v1/notifications', { title: 'Flaky', message: 'three attempts' });
    const attempts = (n: number) => eventually(() => deliveries(hook.body.data.id), (r) => r.body.data[0]?.attributes.attempts.length === n);

    const first = await attempts(1);
    expect(first.body.data[0].attributes).toMatchObject({ status: 'pending', attempts: [expect.objectContaining({ success: false, statusCode: 500 })] });
    expect(Date.parse(first.body.data[0].attributes.nextAttemptAt) - Date.parse(first.body.data[0].attributes.attempts[0].at)).toBe(5000);
    clock.advance(5000);
    const second = await attempts(2);
    expect(Date.parse(second.body.data[0].attributes.nextAttemptAt) - Date.parse(second.body.data[0].attributes.attempts[1].at)).toBe(300_000);
    clock.advance(300_000);
    const done = await attempts(3);
    expect(done.body.data[0].attributes).toMatchObject({ status: 'delivered', nextAttemptAt: null, eventName: 'notification.created' });
    expect(done.body.data[0].attributes.attempts.map((a: { success: boolean; statusCode: number }) => [a.success, a.statusCode])).toEqual([
      [false, 500],
      [false, 500],
      [true, 200],
    ]);

    const got = receiver.received.filter((r) => r.path === '/flaky');
    expect(got.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(got[0].headers['webhook-id']).toBe(done.body.data[0].attributes.webhookId);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(got[2].body)).toMatchObject({ type: 'notification.created', data: { notificationId: note.body.data.id, title: 'Flaky' } });
    // acknowledged: nothing more is sent, however far the clock moves
    clock.advance(3_600_000);
    await eventually(() => deliveries(hook.body.data.id), (r) => r.body.data[0].attributes.status === 'delivered');
    expect(receiver.received.filter((r) => r.path === '/flaky')).toHaveLength(3);
    await api.delete(`/v1/notifications/endpoints/${hook.body.data.id}`);
  });

  it('keeps retrying for more than 24 hours, then fails; a manual re-send delivers it with the same webhook-id', async () => {
    const hook = await webhook('/down', ['notification.created']);
    receiver.failAlways('/down', true);
    await api.post('/v1/notifications', { title: 'Down', message: 'receiver is down' });
    const attempts = (n: number) => eventually(() => deliveries(hook.body.data.id), (r) => r.body.data[0]?.attributes.attempts.length === n);
    let last = await attempts(1);
    let waited = 0;
    for (let n = 2; last.body.data[0].attributes.nextAttemptAt; n++) {
      const wait = Date.parse(last.body.data[0].attributes.nextAttemptAt) - Date.parse(last.body.data[0].attributes.attempts[n - 2].at);
      waited += wait;
      clock.advance(wait);
      last = await attempts(n);
    }
    expect(waited).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    expect(last.body.data[0].attributes.status).toBe('failed');
    expect(last.body.data[0].attributes.attempts).toHaveLength(8);
    const deliveryId = last.body.data[0].id;
    expect((await api.get(`/v1/notifications/endpoints/${hook.body.data.id}`)).body.data.attributes).toMatchObject({ enabled: true, failingSince: expect.any(String) });

    receiver.failAlways('/down', false);
    const resent = await api.post(`/v1/notifications/endpoints/${hook.body.data.id}/deliveries/${deliveryId}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.data.attributes.status).toBe('pending');
    const ok = await attempts(9);
    expect(ok.body.data[0].attributes.status).toBe('delivered');
    const got = receiver.received.filter((r) => r.path === '/down');
    expect(got).toHaveLength(9);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([ok.body.data[0].attributes.webhookId]));
    expect((await api.post(`/v1/notifications/endpoints/${hook.body.data.id}/deliveries/${deliveryId}/resend`)).body.errors[0].code).toBe('INVALID_STATE');
    expect((await api.get(`/v1/notifications/endpoints/${hook.body.data.id}`)).body.data.attributes).toMatchObject({ failingSince: null, lastSuccessAt: expect.any(String) });
    await api.delete(`/v1/notifications/endpoints/${hook.body.data.id}`);
  });

  it('disables an endpoint whose deliveries have failed for 5 days, with a notification saying so', async () => {
    const hook = await webhook('/dead', ['ticket.opened']);
    receiver.failAlways('/dead', true);
    await api.post('/v1/support', { subject: 'Help', message: 'please' });
    await eventually(() => deliveries(hook.body.data.id), (r) => r.body.data[0]?.attributes.attempts.length === 1);
    clock.advance(5 * 24 * 3600 * 1000);
    const disabled = await eventually(() => api.get(`/v1/notifications/endpoints/${hook.body.data.id}`), (r) => r.body.data.attributes.enabled === false);
    expect(disabled.body.data.attributes).toMatchObject({ disabledAt: expect.any(String), disabledReason: expect.stringContaining('failing since') });
    const notes = await eventually(() => api.get('/v1/notifications?type=error'), (r) => r.body.data.length > 0);
    expect(notes.body.data[0].attributes).toMatchObject({ title: 'Notification endpoint disabled', message: expect.stringContaining(hook.body.data.id) });
    expect(ids((await api.get('/v1/notifications/endpoints?enabled=false')).body)).toContain(hook.body.data.id);
    // a disabled endpoint is left out of the test send
    expect((await api.post('/v1/notifications/test')).body.data.attributes.results.map((r: { endpointId: string }) => r.endpointId)).not.toContain(hook.body.data.id);
  });

  it("answers 404 for another project's notifications, endpoints and deliveries", async () => {
    const note = await api.post('/v1/notifications', { title: 'Mine', message: 'not yours' });
    const hook = await webhook('/mine', ['*']);
    const n = note.body.data.id;
    const e = hook.body.data.id;
    const answers = await Promise.all([
      other.get(`/v1/notifications/${n}`),
      other.patch(`/v1/notifications/${n}`, { read: true }),
      other.delete(`/v1/notifications/${n}`),
      other.get(`/v1/notifications/endpoints/${e}`),
      other.delete(`/v1/notifications/endpoints/${e}`),
      other.get(`/v1/notifications/endpoints/${e}/deliveries`),
      other.post(`/v1/notifications/endpoints/${e}/deliveries/anything/resend`),
    ]);
    expect(answers.map((a) => [a.status, a.body.errors?.[0]?.code])).toEqual(Array(7).fill([404, 'NOT_FOUND']));
    expect((await other.get('/v1/notifications')).body.data.map((d: { id: string }) => d.id)).not.toContain(n);
    expect(ids((await other.get('/v1/notifications/endpoints')).body)).not.toContain(e);
    // the other project's mark-all and delete-all leave this project's alone
    await other.patch('/v1/notifications', {});
    await other.delete('/v1/notifications');
    expect((await api.get(`/v1/notifications/${n}`)).body.data.attributes.read).toBe(false);
    expect((await api.post(`/v1/notifications/endpoints/${e}/deliveries/unknown/resend`)).status).toBe(404);
  });
});

describe.each<Profile>(['embedded', 'server'])('webhook targets without the private-target setting (%s profile)', (profile) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer(profile);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it.each([
    ['http://hooks.example.com/x', 'https'],
    ['https://127.0.0.1/x', 'loopback'],
    ['https://localhost:8443/x', 'loopback'],
    ['https://[::1]/x', 'loopback'],
    ['https://10.1.2.3/x', 'private'],
    ['https://192.168.0.10/x', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['https://[fe80::1]/x', 'linkLocal'],
    ['https://[::ffff:127.0.0.1]/x', 'loopback'],
    ['https://user:pw@hooks.example.com/x', 'credentials'],
  ])('refuses %s at create (400 naming %s)', async (url, reason) => {
    const res = await srv.as(srv.bootstrap.apiKey).post('/v1/notifications/endpoints', { type: 'webhook', url, events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { pointer: '/url' } });
    expect(res.body.errors[0].detail).toContain(reason === 'https' || reason === 'credentials' ? reason : 'must not point at loopback, link-local or private addresses');
    if (reason !== 'https' && reason !== 'credentials' && reason !== 'loopback') expect(res.body.errors[0].detail).toContain(reason);
  });

  it('accepts a public https URL, and a name that does not resolve yet (its deliveries fail and retry)', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    expect((await api.post('/v1/notifications/endpoints', { type: 'webhook', url: 'https://93.184.215.14/hooks', events: ['job.failed'] })).status).toBe(201);
    expect((await api.post('/v1/notifications/endpoints', { type: 'webhook', url: 'https://hooks.not-yet-registered.invalid/x', events: ['job.failed'] })).status).toBe(201);
  });
});

describe.each<Profile>(['embedded', 'server'])('deliveries across a restart (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer | null = null;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await srv?.stop();
    await receiver?.close();
  });

  it('keeps a pending delivery through a stop and delivers it after; an acknowledged one is not sent again', async () => {
    srv = await startTestServer(profile, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, { clock });
    let api = srv.as(srv.bootstrap.apiKey);
    const hook = await api.post('/v1/notifications/endpoints', { type: 'webhook', url: `${receiver.url}/restart`, events: ['notification.created'] });
    const secret = hook.body.data.attributes.secret as string;
    const acked = await api.post('/v1/notifications', { title: 'Before', message: 'acknowledged before the stop' });
    await receiver.waitFor('/restart', 1);
    receiver.failAlways('/restart', true);
    const pending = await api.post('/v1/notifications', { title: 'During', message: 'pending at the stop' });
    await eventually(() => api.get(`/v1/notifications/endpoints/${hook.body.data.id}/deliveries?status=pending`), (r) => r.body.data[0]?.attributes.attempts.length === 1);
    await eventually(() => api.get(`/v1/notifications/endpoints/${hook.body.data.id}/deliveries?status=delivered`), (r) => r.body.meta.total === 1);
    const byStatus = async (sort: string) => (await api.get(`/v1/notifications/endpoints/${hook.body.data.id}/deliveries?sort=${sort}`)).body.data.map((d: { attributes: { status: string } }) => d.attributes.status);
    expect(await byStatus('status')).toEqual(['delivered', 'pending']);
    expect(await byStatus('-status')).toEqual(['pending', 'delivered']);

    const env = srv.env;
    await srv.stop({ keepData: true });
    srv = null;
    receiver.failAlways('/restart', false);
    srv = await startTestServer(profile, env, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    clock.advance(5000);
    const done = await eventually(() => api.get(`/v1/notifications/endpoints/${hook.body.data.id}/deliveries`), (r) => r.body.data.length === 2 && r.body.data.every((d: { attributes: { status: string } }) => d.attributes.status === 'delivered'));
    expect(done.body.data.map((d: { attributes: { attempts: unknown[] } }) => d.attributes.attempts.length).sort()).toEqual([1, 2]);

    const got = receiver.received.filter((r) => r.path === '/restart').map((r) => ({ status: r.status, id: r.headers['webhook-id'], note: (new Webhook(secret).verify(r.body, r.headers) as { data: { notificationId: string } }).data.notificationId }));
    expect(got.map((g) => [g.status, g.note])).toEqual([
      [200, acked.body.data.id],
      [503, pending.body.data.id],
      [200, pending.body.data.id],
    ]);
    expect(got[1].id).toBe(got[2].id);
  });
});
