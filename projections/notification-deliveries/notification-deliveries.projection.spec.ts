import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { notificationDeliveriesProjection as projection, type DeliveryDoc } from './notification-deliveries.projection';

const t0 = '2026-01-01T00:00:00.000Z';
let position = 0;
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => ({ id: `e${++position}`, streamId: 'ndelivery-d1', revision: 0, position, type, data, metadata: {} as RecordedEvent['metadata'], recordedAt: t0 }) as RecordedEvent;
const fold = (events: RecordedEvent[]) => events.reduce<DeliveryDoc | null>((doc, e) => {
  const next = projection.evolve(doc, e);
  return next && ({ ...next, _position: e.position } as DeliveryDoc);
}, null);
const strip = (d: DeliveryDoc | null) => d && { ...d, _position: undefined };

describe('notification_deliveries projection', () => {
  const attempt = { deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', attempt: 1, at: '2026-01-01T00:00:01.000Z', statusCode: 200, error: null, durationMs: 4 };
  const schedule = { eventId: 'ev1', eventPosition: 7, eventName: 'job.failed', scheduledAt: t0 };

  it('opens a delivery from a first attempt carrying its schedule, as from DeliveryScheduled and the attempt', () => {
    const older = fold([recorded('notifications.DeliveryScheduled.v1', { deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', ...schedule }), recorded('notifications.DeliveryAttemptSucceeded.v1', attempt)]);
    const one = fold([recorded('notifications.DeliveryAttemptSucceeded.v1', { ...attempt, schedule })]);
    expect(strip(one)).toEqual(strip(older));
    expect(one).toMatchObject({ id: 'd1', status: 'delivered', due: false, dueAt: null, createdAt: t0, eventId: 'ev1', attempts: [{ attempt: 1, success: true, statusCode: 200 }] });
  });

  it('keeps a failed first attempt due at its retry', () => {
    const retryAt = '2026-01-01T00:00:06.000Z';
    const one = fold([recorded('notifications.DeliveryAttemptFailed.v1', { ...attempt, statusCode: 500, error: 'HTTP 500', retryAt, schedule })]);
    expect(one).toMatchObject({ status: 'pending', due: true, dueAt: retryAt, attempts: [{ attempt: 1, success: false }] });
  });

  it('ignores an attempt without a schedule for a delivery it does not have', () => {
    expect(fold([recorded('notifications.DeliveryAttemptSucceeded.v1', attempt)])).toBeNull();
  });
});
