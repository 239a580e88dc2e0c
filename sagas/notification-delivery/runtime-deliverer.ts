import type { RuntimeServices } from '../../libs/runtime/src/context-module';
import { DocumentProjector } from '../../libs/subscriptions/src/document-projection';
import { notificationDeliveriesProjection, type DeliveryDoc } from '../../projections/notification-deliveries/notification-deliveries.projection';
import { notificationEndpointsProjection } from '../../projections/notification-endpoints/notification-endpoints.projection';
import { Deliverer } from './deliverer';
import { EndpointSender } from '../../libs/runtime/src/endpoint-sender';
import { NameResolver } from '../../libs/runtime/src/name-resolver';

/** A delivery's lookup bound: a name silent this long fails the attempt, which is retried. */
const DELIVERY_LOOKUP_TIMEOUT_MS = 5000;

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
    // Deliveries resolve with their own bounded resolver: names that never answer hold its slots, not the request paths'.
    sender: new EndpointSender(rt.mailer, rt.config.webhooks.allowPrivateTargets, () => rt.clock.now(), 256, new NameResolver({ servers: rt.config.webhooks.dns.servers, timeoutMs: DELIVERY_LOOKUP_TIMEOUT_MS, maxConcurrent: 16 }).callback),
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
