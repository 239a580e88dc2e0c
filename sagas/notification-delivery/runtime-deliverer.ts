import type { RuntimeServices } from '../../libs/runtime/src/context-module';
import { DocumentProjector } from '../../libs/subscriptions/src/document-projection';
import { notificationDeliveriesProjection, type DeliveryDoc } from '../../projections/notification-deliveries/notification-deliveries.projection';
import { notificationEndpointsProjection } from '../../projections/notification-endpoints/notification-endpoints.projection';
import { Deliverer } from './deliverer';
import { EndpointSender } from './endpoint-sender';

const deliverers = new WeakMap<RuntimeServices, Deliverer>();

/** The deliverer of one runtime (one per runtime: the fan-out hands it new deliveries, the timers start it), fed by the deliveries projector's change feed. */
export function deliverer(rt: RuntimeServices): Deliverer {
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
