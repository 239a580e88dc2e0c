import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import { eventNameCatalogue, type EventNameCatalogue } from '../../domain/notifications/event-names';
import type { ContextModule } from './context-module';
import type { AnyJobBackedResource } from './job-ports';
import type { EffectDoc } from './outbox/effect-doc';

/** What the runtime reads off a list of context modules (the composition root, contexts/registrations.ts, passes it in). */
export interface Registry {
  modules: readonly ContextModule[];
  /** Every read model, in registration order. */
  projections: DocumentProjection[];
  /** The outbox's due-time index (one of `projections`). */
  outboxIndex: DocumentProjection<EffectDoc>;
  /** Every job-backed resource, by the jobs' `resourceType`. */
  jobResources: Readonly<Record<string, AnyJobBackedResource>>;
  /** The event names notification endpoints subscribe to, generated from every context's event types (DECISIONS 10). */
  eventNames: EventNameCatalogue;
}

export function registryOf(modules: readonly ContextModule[]): Registry {
  const outboxIndexes = modules.flatMap((m) => (m.outboxIndex ? [m.outboxIndex] : []));
  if (outboxIndexes.length !== 1) throw new Error(`exactly one context module registers the outbox's index (outboxIndex), not ${outboxIndexes.length}`);
  return {
    modules,
    projections: modules.flatMap((m) => [...(m.projections as DocumentProjection[]), ...(m.outboxIndex ? [m.outboxIndex as unknown as DocumentProjection] : [])]),
    outboxIndex: outboxIndexes[0],
    jobResources: Object.fromEntries(modules.flatMap((m) => m.jobResources ?? []).map((r) => [r.resourceType, r])),
    eventNames: eventNameCatalogue(
      modules.flatMap((m) => m.eventTypes),
      modules.flatMap((m) => m.unpublished ?? []),
    ),
  };
}
