import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import { eventNameCatalogue, type EventNameCatalogue } from '../../domain/notifications/event-names';
import type { ContextModule } from './context-module';
import type { AnyJobBackedResource } from './job-ports';

/** What the runtime reads off a list of context modules (the composition root, contexts/registrations.ts, passes it in). */
export interface Registry {
  modules: readonly ContextModule[];
  /** Every read model, in registration order. */
  projections: DocumentProjection[];
  /** Every job-backed resource, by the jobs' `resourceType`. */
  jobResources: Readonly<Record<string, AnyJobBackedResource>>;
  /** The event names notification endpoints subscribe to, generated from every context's event types (DECISIONS 10). */
  eventNames: EventNameCatalogue;
}

export function registryOf(modules: readonly ContextModule[]): Registry {
  return {
    modules,
    projections: modules.flatMap((m) => m.projections as DocumentProjection[]),
    jobResources: Object.fromEntries(modules.flatMap((m) => m.jobResources ?? []).map((r) => [r.resourceType, r])),
    eventNames: eventNameCatalogue(
      modules.flatMap((m) => m.eventTypes),
      modules.flatMap((m) => m.unpublished ?? []),
    ),
  };
}
