import type { DomainEvent } from '../shared/domain-error';

/** Streams of the notifications context (topic `cloud.notifications.events.v1`). */
export const notificationStream = (notificationId: string) => `notification-${notificationId}`;
export const endpointStream = (endpointId: string) => `nendpoint-${endpointId}`;
export const deliveryStream = (deliveryId: string) => `ndelivery-${deliveryId}`;

export type NotificationType = 'info' | 'warning' | 'error' | 'success';
export type EndpointType = 'webhook' | 'email';

export type NotificationCreated = DomainEvent<
  'notifications.NotificationCreated.v1',
  { notificationId: string; projectId: string; title: string; message: string; type: NotificationType; createdAt: string }
>;
export type NotificationRead = DomainEvent<'notifications.NotificationRead.v1', { notificationId: string; projectId: string; read: boolean; at: string }>;
export type NotificationDeleted = DomainEvent<'notifications.NotificationDeleted.v1', { notificationId: string; projectId: string; deletedAt: string }>;

/** The signing secret is in the credential vault; the event holds only its reference (DECISIONS 11). */
export type EndpointCreated = DomainEvent<
  'notifications.NotificationEndpointCreated.v1',
  { endpointId: string; projectId: string; type: EndpointType; url: string | null; email: string | null; events: string[]; enabled: boolean; secretRef: string | null; createdAt: string }
>;
export type EndpointDisabled = DomainEvent<'notifications.NotificationEndpointDisabled.v1', { endpointId: string; projectId: string; reason: string; disabledAt: string }>;
export type EndpointDeleted = DomainEvent<'notifications.NotificationEndpointDeleted.v1', { endpointId: string; projectId: string; secretRef: string | null; deletedAt: string }>;

/** One event to one endpoint. `deliveryId` is the Standard Webhooks `webhook-id` (`msg_<deliveryId>`) on every attempt. */
export type DeliveryScheduled = DomainEvent<
  'notifications.DeliveryScheduled.v1',
  { deliveryId: string; endpointId: string; projectId: string; eventId: string; eventPosition: number; eventName: string; scheduledAt: string }
>;
export type AttemptOutcome = {
  attempt: number;
  at: string;
  /** The receiver's HTTP status (webhooks), or null (no answer, or an email). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
};
/**
 * What a DeliveryScheduled records, carried instead by a delivery's first attempt when that attempt
 * is the first event of its stream (the fan-out's deliveries are attempted before anything is
 * appended: one event per delivery instead of two). Streams recorded before have a DeliveryScheduled
 * and no `schedule` on their attempts; both shapes fold.
 */
export type DeliverySchedule = { eventId: string; eventPosition: number; eventName: string; scheduledAt: string };
type AttemptData = AttemptOutcome & { deliveryId: string; endpointId: string; projectId: string; schedule?: DeliverySchedule };
export type DeliveryAttemptSucceeded = DomainEvent<'notifications.DeliveryAttemptSucceeded.v1', AttemptData>;
/** `retryAt` null: no attempt is left (the delivery failed; a manual re-send may start it again). */
export type DeliveryAttemptFailed = DomainEvent<'notifications.DeliveryAttemptFailed.v1', AttemptData & { retryAt: string | null }>;
export type DeliveryResent = DomainEvent<'notifications.DeliveryResent.v1', { deliveryId: string; endpointId: string; projectId: string; resentAt: string }>;

export type NotificationEvent = NotificationCreated | NotificationRead | NotificationDeleted;
export type EndpointEvent = EndpointCreated | EndpointDisabled | EndpointDeleted;
export type DeliveryEvent = DeliveryScheduled | DeliveryAttemptSucceeded | DeliveryAttemptFailed | DeliveryResent;

export const NotificationEventTypes = {
  NotificationCreated: 'notifications.NotificationCreated.v1',
  NotificationRead: 'notifications.NotificationRead.v1',
  NotificationDeleted: 'notifications.NotificationDeleted.v1',
  EndpointCreated: 'notifications.NotificationEndpointCreated.v1',
  EndpointDisabled: 'notifications.NotificationEndpointDisabled.v1',
  EndpointDeleted: 'notifications.NotificationEndpointDeleted.v1',
  DeliveryScheduled: 'notifications.DeliveryScheduled.v1',
  DeliveryAttemptSucceeded: 'notifications.DeliveryAttemptSucceeded.v1',
  DeliveryAttemptFailed: 'notifications.DeliveryAttemptFailed.v1',
  DeliveryResent: 'notifications.DeliveryResent.v1',
} as const satisfies Record<string, (NotificationEvent | EndpointEvent | DeliveryEvent)['type']>;

/**
 * A delivery's own bookkeeping and the endpoints' configuration: endpoints cannot subscribe to
 * these (a `*` endpoint would otherwise be sent the record of its own deliveries, without end).
 */
export const UNPUBLISHED_NOTIFICATION_EVENT_TYPES: readonly string[] = [
  NotificationEventTypes.NotificationRead,
  NotificationEventTypes.NotificationDeleted,
  NotificationEventTypes.EndpointCreated,
  NotificationEventTypes.EndpointDeleted,
  NotificationEventTypes.DeliveryScheduled,
  NotificationEventTypes.DeliveryAttemptSucceeded,
  NotificationEventTypes.DeliveryAttemptFailed,
  NotificationEventTypes.DeliveryResent,
];
