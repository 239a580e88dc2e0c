import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { EndpointFields } from '../../libs/domain/notifications/endpoint.decider';
import { NotificationEventTypes, type DeliveryEvent, type EndpointEvent } from '../../libs/domain/notifications/events';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** The endpoint's fields as created (`secretRef`: the vault reference of the signing secret, never the secret). */
export interface EndpointDoc extends ReadDoc, EndpointFields {
  projectId: string;
  createdAt: string;
  /** Position of the create: events recorded before it are not sent to it. */
  createdPosition: number;
  disabledAt: string | null;
  disabledReason: string | null;
  lastSuccessAt: string | null;
  /** The first failed attempt since the last success (the 5-day rule of DECISIONS 17), or null. */
  failingSince: string | null;
}

export const ENDPOINTS_LIST: ListShape = { query: 'GET /v1/notifications/endpoints', equal: ['projectId'], residual: ['type', 'enabled'], sortable: ['createdAt'] };
const LISTS: ListShape[] = [
  ENDPOINTS_LIST,
  { query: 'fan-out and POST /v1/notifications/test: the enabled endpoints of a project', equal: ['projectId', 'enabled'], sortable: ['createdAt'] },
];

type Event = EndpointEvent | DeliveryEvent;

/** Notification endpoints and their delivery health (updated by each attempt's outcome). */
export const notificationEndpointsProjection: DocumentProjection<EndpointDoc> & { lists: ListShape[] } = {
  name: 'notification_endpoints',
  version: 1,
  eventTypes: [
    NotificationEventTypes.EndpointCreated,
    NotificationEventTypes.EndpointDisabled,
    NotificationEventTypes.EndpointDeleted,
    NotificationEventTypes.DeliveryAttemptSucceeded,
    NotificationEventTypes.DeliveryAttemptFailed,
  ],
  creates: [NotificationEventTypes.EndpointCreated],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { endpointId: string }).endpointId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as Event;
    switch (event.type) {
      case 'notifications.NotificationEndpointCreated.v1': {
        const { endpointId, ...d } = event.data;
        return { ...d, id: endpointId, _position: recorded.position, createdPosition: recorded.position, disabledAt: null, disabledReason: null, lastSuccessAt: null, failingSince: null };
      }
      case 'notifications.NotificationEndpointDisabled.v1':
        return current && { ...current, enabled: false, disabledAt: event.data.disabledAt, disabledReason: event.data.reason };
      case 'notifications.NotificationEndpointDeleted.v1':
        return null;
      case 'notifications.DeliveryAttemptSucceeded.v1':
        return current && { ...current, lastSuccessAt: event.data.at, failingSince: null };
      case 'notifications.DeliveryAttemptFailed.v1':
        return current && { ...current, failingSince: current.failingSince ?? event.data.at };
      default:
        return current;
    }
  },
};
