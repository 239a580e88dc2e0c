/**
 * Webhook deliveries across a SIGKILL (the graceful restart is in notifications.e2e.spec.ts): the
 * server runs in its own process (crashableServer) and is killed with deliveries in every state:
 * acknowledged and recorded, answered 2xx by the receiver but not yet recorded (the receiver holds
 * the end of its 200 answers, so the server cannot have read them), and just created (the fan-out
 * may not have scheduled them yet). After the restart every delivery arrives, each (event, endpoint)
 * under one `webhook-id` (the held ones are sent once more with the same id: at-least-once, as
 * DESIGN documents), the recorded ones are not sent again, and the store holds exactly one delivery
 * stream, one schedule and one success per (event, endpoint).
 */
import { Webhook } from 'standardwebhooks';
import { client } from '../support/http-client';
import { crashableServer } from '../support/spawn-server';
import { eventually } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const ENDPOINTS = 4;

describe.each(['embedded', 'server'] as const)('webhook deliveries across a SIGKILL (%s profile)', (profile) => {
  const server = crashableServer(profile, 'whcrash');
  const allowPrivate = process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The spawned server inherits this: its receiver is on loopback over plain http.
    process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = 'true';
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    if (allowPrivate === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
    else process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = allowPrivate;
    await server.cleanup();
    await receiver?.close();
  });

  it('delivers every delivery in flight at the kill after the restart, each (event, endpoint) under one webhook-id, none lost and none scheduled twice', async () => {
    await server.start();
    let api = client(server.url, { 'X-Service-API-Key': server.apiKey() });
    const paths = Array.from({ length: ENDPOINTS }, (_, i) => `/crash/${i}`);
    const endpoints: Array<{ id: string; path: string; secret: string }> = [];
    for (const path of paths) {
      const created = await api.post('/v1/notifications/endpoints', { type: 'webhook', url: `${receiver.url}${path}`, events: ['notification.created'] });
      expect(created.status).toBe(201);
      endpoints.push({ id: created.body.data.id, path, secret: created.body.data.attributes.secret });
    }
    const notify = async (title: string) => {
      const r = await api.post('/v1/notifications', { title, message: 'crash test' });
      expect(r.status).toBe(201);
      return r.body.data.id as string;
    };
    const delivered = (endpointId: string) => api.get(`/v1/notifications/endpoints/${endpointId}/deliveries?status=delivered&limit=1`).then((r) => r.body.meta.total as number);

    // 1. Acknowledged and recorded before the kill: never sent again.
    const recorded = [await notify('recorded 0'), await notify('recorded 1')];
    for (const ep of endpoints) await eventually(() => delivered(ep.id), (n) => n === recorded.length);

    // 2. Answered 2xx by the receiver, the answer not yet read by the server: every attempt in flight.
    for (const path of paths) receiver.hold(path, true);
    const held: string[] = [];
    for (let i = 0; i < 6; i++) held.push(await notify(`held ${i}`));
    await eventually(async () => receiver.held(), (n) => n === held.length * ENDPOINTS);

    // 3. Just created: their fan-out and first attempts race the kill (each notification is in the log).
    const late: string[] = [];
    for (let i = 0; i < 4; i++) late.push(await notify(`late ${i}`));
    await server.kill();
    for (const path of paths) receiver.hold(path, false);

    // At the kill, no held delivery had its success recorded (the server could not read the 2xx).
    const atKill = await deliveryEvents();
    const heldIds = new Set(receiver.received.filter((r) => r.status === 200 && held.includes(noteOf(r))).map((r) => r.headers['webhook-id']));
    expect(heldIds.size).toBe(held.length * ENDPOINTS);
    const succeededAtKill = new Set(atKill.filter((e) => e.type.startsWith('notifications.DeliveryAttemptSucceeded')).map((e) => `msg_${e.deliveryId}`));
    expect([...heldIds].filter((id) => succeededAtKill.has(id))).toEqual([]);

    // After the restart every (event, endpoint) is delivered.
    await server.start();
    api = client(server.url, { 'X-Service-API-Key': server.apiKey() });
    const all = [...recorded, ...held, ...late];
    for (const ep of endpoints) await eventually(() => delivered(ep.id), (n) => n === all.length, 60_000);

    // The receiver: each (event, endpoint) under one webhook-id, verified with the endpoint's secret;
    // the recorded ones once, the held ones at least twice (the held answer, then the re-send).
    const ids = new Map<string, Set<string>>();
    const times = new Map<string, number>();
    for (const ep of endpoints) {
      const wh = new Webhook(ep.secret);
      for (const r of receiver.received.filter((x) => x.path === ep.path)) {
        const note = (wh.verify(r.body, r.headers) as { data: { notificationId: string } }).data.notificationId;
        const key = `${note}@${ep.path}`;
        ids.set(key, (ids.get(key) ?? new Set()).add(r.headers['webhook-id']));
        if (r.status === 200) times.set(key, (times.get(key) ?? 0) + 1);
      }
    }
    for (const note of all) for (const ep of endpoints) expect({ key: `${note}@${ep.path}`, ids: ids.get(`${note}@${ep.path}`)?.size }).toEqual({ key: `${note}@${ep.path}`, ids: 1 });
    expect(ids.size).toBe(all.length * ENDPOINTS);
    for (const note of recorded) for (const ep of endpoints) expect(times.get(`${note}@${ep.path}`)).toBe(1);
    for (const note of held) for (const ep of endpoints) expect(times.get(`${note}@${ep.path}`)).toBeGreaterThanOrEqual(2);

    // The store: one delivery stream per (event, endpoint), scheduled once, succeeded once.
    const after = await deliveryEvents();
    const streams = new Map<string, { key: string | null; schedules: number; successes: number }>();
    for (const e of after) {
      const s = streams.get(e.deliveryId) ?? { key: null, schedules: 0, successes: 0 };
      if (e.eventId && e.endpointId) s.key = `${e.eventId}@${e.endpointId}`;
      // A delivery's schedule is its stream's first event (a DeliveryScheduled, or a first attempt carrying it); a later DeliveryScheduled would be a second.
      if (e.revision === 0) s.schedules++;
      else if (e.type.startsWith('notifications.DeliveryScheduled')) s.schedules++;
      if (e.type.startsWith('notifications.DeliveryAttemptSucceeded')) s.successes++;
      streams.set(e.deliveryId, s);
    }
    const perPair = new Map<string, number>();
    for (const s of streams.values()) perPair.set(s.key ?? 'unknown', (perPair.get(s.key ?? 'unknown') ?? 0) + 1);
    expect(streams.size).toBe(all.length * ENDPOINTS);
    expect([...perPair.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect([...streams.values()].filter((s) => s.schedules !== 1 || s.successes !== 1)).toEqual([]);
  });

  /** The delivery events in the store (PGlite: read while the server is down). */
  async function deliveryEvents() {
    const rows = await server.query<{ stream_id: string; revision: string | number; type: string; data: Record<string, unknown> | string }>(
      `SELECT stream_id, revision, type, data FROM "${server.storeSchema}".events WHERE stream_id LIKE 'ndelivery-%' ORDER BY position`,
    );
    return rows.map((r) => {
      // The delivered event's id: on a DeliveryScheduled, or in the `schedule` of a first attempt recorded without one.
      const data = (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { eventId?: string; endpointId?: string; schedule?: { eventId: string } };
      return { deliveryId: r.stream_id.slice('ndelivery-'.length), revision: Number(r.revision), type: r.type, eventId: data.eventId ?? data.schedule?.eventId ?? null, endpointId: data.endpointId ?? null };
    });
  }
});

const noteOf = (r: { body: string }): string => (JSON.parse(r.body) as { data: { notificationId: string } }).data.notificationId;
