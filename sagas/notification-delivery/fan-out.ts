import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy } from '../../libs/eventstore/src/handle-command';
import { deliveryIdFor } from '../../libs/domain/notifications/delivery.decider';
import { subscribes, type EventNameCatalogue } from '../../libs/domain/notifications/event-names';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';
import type { EndpointDoc } from '../../projections/notification-endpoints/notification-endpoints.projection';
import type { NewDelivery } from './deliverer';

/** The project a recorded event belongs to (its metadata, else its data), or null. */
export function projectOfEvent(e: RecordedEvent): string | null {
  const p = e.metadata?.projectId ?? (e.data as { projectId?: unknown }).projectId;
  return typeof p === 'string' && p ? p : null;
}

export interface FanOutDeps {
  events: EventStore;
  names: EventNameCatalogue;
  endpoints: () => Promise<ReadCollection<EndpointDoc>>;
  /** Resolves once the endpoints model has passed `position` (false: it did not in time). */
  endpointsAt: (position: number) => Promise<boolean>;
  now: () => string;
  /**
   * The deliverer's hand-off: the batch's deliveries, whose first attempts record them (one event
   * each); resolves once all are in the log.
   */
  deliverNew: (deliveries: NewDelivery[]) => Promise<void>;
}

/**
 * ScheduleDeliveryOn<published event>: each event with a published name becomes one delivery per
 * enabled endpoint of its project that subscribes to the name and existed before the event. The
 * delivery's id is derived from (event, endpoint) and its stream is created with `no_stream`, so a
 * replay after a crash schedules nothing twice; the checkpoint moves only once they are in the log.
 * The first append of each delivery's stream is its first attempt's record, made by the deliverer
 * (`deliverNew`).
 */
export class DeliveryFanOut implements SubscriptionHandler {
  readonly name = 'saga:notification-fanout';
  readonly batchSize = 500;

  /** The log's head when this process first handled a batch: events after it were handed to no earlier process. */
  private startHead: number | null = null;
  /** The last event position this process handed deliveries of (a batch handled again is at or below it). */
  private handedUpTo = 0;

  constructor(private readonly deps: FanOutDeps) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    const named = batch.flatMap((e) => {
      const name = this.deps.names.nameOf(e.type);
      const projectId = projectOfEvent(e);
      return name && projectId ? [{ e, name, projectId }] : [];
    });
    if (named.length === 0) return false;
    // Endpoints created before an event must be seen when it is handled.
    if (!(await this.deps.endpointsAt(named[named.length - 1].e.position))) throw new Error('notification_endpoints model is behind; retrying the batch');
    const endpoints = await this.deps.endpoints();
    const byProject = new Map<string, Promise<EndpointDoc[]>>();
    const of = (projectId: string) => {
      let found = byProject.get(projectId);
      if (!found) byProject.set(projectId, (found = endpoints.find({ filter: { projectId, enabled: true }, limit: 10_000, withTotal: false }).then((r) => r.items)));
      return found;
    };
    const now = this.deps.now();
    const found: Array<{ e: RecordedEvent; ep: EndpointDoc; name: string }> = [];
    for (const { e, name, projectId } of named) {
      for (const ep of await of(projectId)) {
        if (ep.createdPosition >= e.position || !subscribes(ep.events, name)) continue;
        found.push({ e, ep, name });
      }
    }
    if (found.length === 0) return false;
      // A delivery's stream can exist only if its event was handed over before: by an earlier process
      // (then the event is at or below the head this process started at) or by this one (a batch
      // handled again after a failure). Other deliveries' streams are not read before their first attempt.
      this.startHead ??= await this.deps.events.headPosition();
      const seen = Math.max(this.startHead, this.handedUpTo);
      this.handedUpTo = Math.max(this.handedUpTo, named[named.length - 1].e.position);
      // The checkpoint moves only once every delivery is in the log: until then a crash hands the
      // batch over again, and each delivery is derived again under the same id.
      await this.deps.deliverNew(
        found.map(({ e, ep, name }) => ({
          deliveryId: deliveryIdFor(e.id, ep.id),
          endpointId: ep.id,
          projectId: ep.projectId,
          schedule: { eventId: e.id, eventPosition: e.position, eventName: name, scheduledAt: now },
          metadata: causedBy(e, { projectId: ep.projectId, actor: 'system:notifications' }),
          mayExist: e.position <= seen,
        })),
      );
    return true;
  }

}
