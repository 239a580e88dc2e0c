import pino from 'pino';
import type { EventStore, NewEvent, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { WrongExpectedRevisionError } from '../../libs/eventstore/src/event-store.port';
import { ManualClock } from '../../libs/runtime/src/clock';
import type { CredentialVault } from '../../libs/providers/src/credential-vault';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { DeliveryDoc } from '../../projections/notification-deliveries/notification-deliveries.projection';
import type { EndpointDoc } from '../../projections/notification-endpoints/notification-endpoints.projection';
import { Deliverer, type NewDelivery } from './deliverer';
import type { EndpointSender, SendResult } from '../../libs/runtime/src/endpoint-sender';

/** The log in memory: streams with expected revisions, positions in append order. */
function memoryLog() {
  const all: RecordedEvent[] = [];
  const store = {
    kind: 'memory',
    async append(streamId: string, events: NewEvent[], { expectedRevision }: { expectedRevision: 'no_stream' | 'any' | number }) {
      const current = all.filter((e) => e.streamId === streamId);
      const actual = current.length ? current[current.length - 1].revision : 'no_stream';
      if (expectedRevision !== 'any' && expectedRevision !== actual) throw new WrongExpectedRevisionError(streamId, expectedRevision, actual);
      for (const e of events) all.push({ ...e, streamId, revision: current.length + events.indexOf(e), position: all.length + 1, recordedAt: new Date().toISOString() });
      return { nextRevision: current.length + events.length - 1, position: all.length };
    },
    async readStream(streamId: string) {
      return all.filter((e) => e.streamId === streamId);
    },
    async readAll({ fromPosition, maxCount }: { fromPosition: number; maxCount: number }) {
      return all.filter((e) => e.position > fromPosition).slice(0, maxCount);
    },
  };
  return { store: store as unknown as EventStore, all };
}

const endpoint: EndpointDoc = { id: 'ep1', _position: 1, projectId: 'p1', type: 'webhook', url: 'https://hooks.example.com/x', email: null, events: ['*'], enabled: true, secretRef: 'ref1', createdAt: '', createdPosition: 1, disabledAt: null, disabledReason: null, lastSuccessAt: null, failingSince: null } as EndpointDoc;

function setup(answer: () => Promise<SendResult>, log = memoryLog()) {
  const sent: string[] = [];
  const sender = { send: async (_t: unknown, m: { webhookId: string }) => (sent.push(m.webhookId), answer()), close: () => undefined } as unknown as EndpointSender;
  const noDue = { find: async () => ({ items: [], total: 0 }) } as unknown as ReadCollection<DeliveryDoc>;
  const endpoints = { get: async (id: string) => (id === endpoint.id ? endpoint : null) } as unknown as ReadCollection<EndpointDoc>;
  const vault = { get: async () => ({ secret: 'whsec_x' }) } as unknown as CredentialVault;
  const clock = new ManualClock();
  const d = new Deliverer({ events: log.store, deliveries: async () => noDue, endpoints: async () => endpoints, vault, sender, clock, logger: pino({ level: 'silent' }), concurrency: 4, firstRecordWaitMs: 30 });
  return { log, sent, d };
}

const newDelivery = async (log: ReturnType<typeof memoryLog>, id = 'd1'): Promise<NewDelivery> => {
  // The delivered event, in the log before its delivery.
  await log.store.append('notification-n1', [{ id: 'ev1', type: 'notifications.NotificationCreated.v1', data: { notificationId: 'n1', projectId: 'p1' }, metadata: { schemaVersion: 1, projectId: 'p1' } }], { expectedRevision: 'any' });
  const position = log.all[log.all.length - 1].position;
  return { deliveryId: id, endpointId: 'ep1', projectId: 'p1', schedule: { eventId: 'ev1', eventPosition: position, eventName: 'notification.created', scheduledAt: new Date().toISOString() }, metadata: { projectId: 'p1', actor: 'system:notifications', causationId: 'ev1', correlationId: 'ev1' }, mayExist: true };
};
const deliveryEvents = (all: RecordedEvent[]) => all.filter((e) => e.streamId.startsWith('ndelivery-')).map((e) => ({ type: e.type, revision: e.revision, schedule: (e.data as { schedule?: unknown }).schedule !== undefined }));
const ok = async (): Promise<SendResult> => ({ success: true, statusCode: 200, error: null, durationMs: 1 });

describe('Deliverer: new deliveries', () => {
  it('records a first attempt as the stream\'s one event, carrying its schedule, and resolves once it is in the log', async () => {
    const { log, sent, d } = setup(ok);
    await d.deliverNew([await newDelivery(log)]);
    expect(sent).toEqual(['msg_d1']);
    expect(deliveryEvents(log.all)).toEqual([{ type: 'notifications.DeliveryAttemptSucceeded.v1', revision: 0, schedule: true }]);
    await d.stop();
  });

  it('records a failed first attempt with its retry and its schedule', async () => {
    const { log, d } = setup(async () => ({ success: false, statusCode: 500, error: 'HTTP 500', durationMs: 1 }));
    await d.deliverNew([await newDelivery(log)]);
    const [only] = log.all.filter((e) => e.streamId === 'ndelivery-d1');
    expect(only).toMatchObject({ type: 'notifications.DeliveryAttemptFailed.v1', revision: 0, data: { attempt: 1, statusCode: 500, schedule: { eventId: 'ev1' } } });
    expect((only.data as { retryAt: string | null }).retryAt).not.toBeNull();
    await d.stop();
  });

  it('appends the schedule alone when the receiver is slow (the hand-off resolves before the answer), then the attempt after it', async () => {
    let answer!: () => void;
    const { log, d } = setup(() => new Promise<SendResult>((r) => (answer = () => r({ success: true, statusCode: 200, error: null, durationMs: 50 }))));
    await d.deliverNew([await newDelivery(log)]);
    expect(deliveryEvents(log.all)).toEqual([{ type: 'notifications.DeliveryScheduled.v1', revision: 0, schedule: false }]);
    answer();
    await d.stop();
    expect(deliveryEvents(log.all)).toEqual([
      { type: 'notifications.DeliveryScheduled.v1', revision: 0, schedule: false },
      { type: 'notifications.DeliveryAttemptSucceeded.v1', revision: 1, schedule: false },
    ]);
  });

  it('does not send a delivery handed over again once its success is recorded (a fan-out batch after a crash)', async () => {
    const { log, sent, d } = setup(ok);
    const delivery = await newDelivery(log);
    await d.deliverNew([delivery]);
    await d.stop();
    // The next process's deliverer is handed the same delivery: it finds it in the log.
    const next = setup(ok, log);
    await next.d.deliverNew([delivery]);
    await next.d.stop();
    expect([...sent, ...next.sent]).toEqual(['msg_d1']);
    expect(deliveryEvents(log.all)).toHaveLength(1);
  });

  it('refuses the hand-off of deliveries it has not started once stopped (the fan-out handles its batch again)', async () => {
    const { log, d } = setup(ok);
    const delivery = await newDelivery(log);
    await d.stop();
    await expect(d.deliverNew([delivery])).rejects.toThrow('deliverer stopped');
    expect(deliveryEvents(log.all)).toEqual([]);
  });
});
