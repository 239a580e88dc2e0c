import { NotificationEventTypes, UNPUBLISHED_NOTIFICATION_EVENT_TYPES } from '../../libs/domain/notifications/events';
import { notificationDeliveriesProjection } from '../../projections/notification-deliveries/notification-deliveries.projection';
import { notificationEndpointsProjection } from '../../projections/notification-endpoints/notification-endpoints.projection';
import { notificationsProjection } from '../../projections/notifications/notifications.projection';
import { deliverer } from '../../sagas/notification-delivery/runtime-deliverer';
import { DeliveryFanOut } from '../../sagas/notification-delivery/fan-out';
import { isoNow } from '../../libs/runtime/src/clock';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Notifications and their delivery (spec 4.15, section 6, DECISIONS 10 and 17): a fan-out from the
 * log turns each published event into deliveries, and the deliverer (a durable timer over the
 * deliveries' due times) sends them to webhooks and by email, retried for more than 24 hours.
 */
export const notificationsModule: ContextModule = {
  name: 'notifications',
  projections: [notificationsProjection, notificationEndpointsProjection, notificationDeliveriesProjection],
  processManagers: (rt) => [
    new DeliveryFanOut({
      events: rt.events,
      names: rt.eventNames,
      endpoints: () => rt.projections.collection(notificationEndpointsProjection),
      endpointsAt: (position) => rt.projections.runner(notificationEndpointsProjection.name).waitFor(position, 30_000),
      now: () => isoNow(rt.clock),
      deliverNew: (deliveries) => deliverer(rt).deliverNew(deliveries),
    }),
  ],
  timers: (rt) => [deliverer(rt)],
  eventTypes: Object.values(NotificationEventTypes),
  unpublished: UNPUBLISHED_NOTIFICATION_EVENT_TYPES,
};
