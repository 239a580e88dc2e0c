import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { NotificationEventTypes, type DeliveryEvent } from '../../libs/domain/notifications/events';
import type { DeliveryStatus } from '../../libs/domain/notifications/delivery.decider';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

export interface DeliveryAttemptRecord {
  attempt: number;
  at: string;
  success: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryDoc extends ReadDoc {
  endpointId: string;
  projectId: string;
  eventId: string;
  eventName: string;
  eventPosition: number;
  status: DeliveryStatus;
  attempts: DeliveryAttemptRecord[];
  /** The durable timer: when the next attempt is due (null unless pending). */
  dueAt: string | null;
  /** Set while `dueAt` is: the poll's equality key (FerretDB pushes only equality down). */
  due: boolean;
  createdAt: string;
  updatedAt: string;
}

export const DELIVERIES_LIST: ListShape = { query: 'GET /v1/notifications/endpoints/{id}/deliveries', equal: ['endpointId'], residual: ['status'], sortable: ['createdAt', 'updatedAt', 'status'] };
const LISTS: ListShape[] = [
  DELIVERIES_LIST,
  { query: 'deliverer: pending deliveries by due time', equal: ['due'], sorts: [[{ field: 'dueAt', direction: 1 }]] },
];

/**
 * Deliveries with their attempts (a delivery has at most a few dozen), and the due-time index the
 * deliverer polls. A delivery's document is opened by its DeliveryScheduled or, when its first
 * attempt was recorded first, by that attempt (its `schedule`); both are in the log.
 */
export const notificationDeliveriesProjection: DocumentProjection<DeliveryDoc> & { lists: ListShape[] } = {
  name: 'notification_deliveries',
  version: 1,
  eventTypes: [NotificationEventTypes.DeliveryScheduled, NotificationEventTypes.DeliveryAttemptSucceeded, NotificationEventTypes.DeliveryAttemptFailed, NotificationEventTypes.DeliveryResent],
  creates: [NotificationEventTypes.DeliveryScheduled],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { deliveryId: string }).deliveryId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as DeliveryEvent;
    switch (event.type) {
      case 'notifications.DeliveryScheduled.v1': {
        const d = event.data;
        return { id: d.deliveryId, _position: recorded.position, endpointId: d.endpointId, projectId: d.projectId, eventId: d.eventId, eventName: d.eventName, eventPosition: d.eventPosition, status: 'pending', attempts: [], dueAt: d.scheduledAt, due: true, createdAt: d.scheduledAt, updatedAt: d.scheduledAt };
      }
      case 'notifications.DeliveryAttemptSucceeded.v1':
      case 'notifications.DeliveryAttemptFailed.v1': {
        // A first attempt with its schedule is the delivery's first event (DeliveryScheduled before it otherwise).
        const s = event.data.schedule;
        const opened: DeliveryDoc | null = current ?? (s ? { id: event.data.deliveryId, _position: recorded.position, endpointId: event.data.endpointId, projectId: event.data.projectId, eventId: s.eventId, eventName: s.eventName, eventPosition: s.eventPosition, status: 'pending', attempts: [], dueAt: s.scheduledAt, due: true, createdAt: s.scheduledAt, updatedAt: s.scheduledAt } : null);
        if (!opened) return null;
        const { attempt, at, statusCode, error, durationMs } = event.data;
        const success = event.type === 'notifications.DeliveryAttemptSucceeded.v1';
        const retryAt = event.type === 'notifications.DeliveryAttemptFailed.v1' ? event.data.retryAt : null;
        const status: DeliveryStatus = success ? 'delivered' : retryAt ? 'pending' : 'failed';
        return { ...opened, status, attempts: [...opened.attempts, { attempt, at, success, statusCode, error, durationMs }], dueAt: retryAt, due: retryAt !== null, updatedAt: at };
      }
      case 'notifications.DeliveryResent.v1':
        return current && { ...current, status: 'pending', dueAt: event.data.resentAt, due: true, updatedAt: event.data.resentAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
