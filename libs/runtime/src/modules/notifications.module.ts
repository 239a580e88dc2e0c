import { NotificationEventTypes, UNPUBLISHED_NOTIFICATION_EVENT_TYPES } from '../../../domain/notifications/events';
import { DocumentProjector } from '../../../subscriptions/src/document-projection';
import { notificationDeliveriesProjection, type DeliveryDoc } from '../../../../projections/notification-deliveries/notification-deliveries.projection';
import { notificationEndpointsProjection } from '../../../../projections/notification-endpoints/notification-endpoints.projection';
import { notificationsProjection } from '../../../../projections/notifications/notifications.projection';
import { Deliverer } from '../../../../sagas/notification-delivery/deliverer';
import { EndpointSender } from '../../../../sagas/notification-delivery/endpoint-sender';
import { DeliveryFanOut } from '../../../../sagas/notification-delivery/fan-out';
import { isoNow } from '../clock';
import type { ContextModule, RuntimeServices } from '../context-module';

const deliverers = new WeakMap<RuntimeServices, Deliverer>();

/** The deliverer of one runtime (one per runtime: the fan-out hands it new deliveries, the timers start it), fed by the deliveries projector's change feed. */
function deliverer(rt: RuntimeServices): Deliverer {
  const known = deliverers.get(rt);
  if (known) return known;
  const d = new Deliverer({
    events: rt.events,
    deliveries: () => rt.projections.collection(notificationDeliveriesProjection),
    endpoints: () => rt.projections.collection(notificationEndpointsProjection),
    vault: rt.vault,
    sender: new EndpointSender(rt.mailer, rt.config.webhooks.allowPrivateTargets, () => rt.clock.now()),
    clock: rt.clock,
    logger: rt.logger,
    concurrency: 128,
  });
  rt.projections.onRunner(notificationDeliveriesProjection.name, (runner) => {
    if (runner.handler instanceof DocumentProjector) (runner.handler as DocumentProjector<DeliveryDoc>).onWritten((changes) => d.observe(changes));
  });
  deliverers.set(rt, d);
  return d;
}

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
