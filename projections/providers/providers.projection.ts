import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ProviderEvent, ProviderKind } from '../../libs/domain/providers/events';
import { ProviderEventTypes } from '../../libs/domain/providers/events';

export interface ProviderDoc extends ReadDoc {
  projectId: string;
  name: ProviderKind;
  enabled: boolean;
  region: string | null;
  /** Vault reference only; the credentials are never projected. */
  credentialsRef: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * Deleted providers stay in the collection, flagged with `deletedAt` (queries filter
   * `deletedAt: null`); the API answers 404 for them.
   */
  deletedAt: string | null;
}

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const PROVIDERS_LIST: ListShape = { query: 'GET /v1/providers', equal: ['projectId', 'deletedAt'], residual: ['enabled', 'name'], sortable: ['createdAt', 'updatedAt', 'name'] };
const LISTS: ListShape[] = [PROVIDERS_LIST];

/** Serves GET /v1/providers and provider lookups of other features (see findProjectProvider). */
export const providersProjection: DocumentProjection<ProviderDoc> = {
  name: 'providers',
  version: 1,
  eventTypes: [ProviderEventTypes.ProviderRegistered, ProviderEventTypes.ProviderUpdated, ProviderEventTypes.ProviderDeleted],
  // List indexes: [equality fields, sort field (both ways), id], see libs/readstore/src/list-shapes.ts.
  // Lookups by {projectId, deletedAt: null[, name]} (catalog, instances) use their prefixes.
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { providerId: string }).providerId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as ProviderEvent;
    switch (event.type) {
      case 'providers.ProviderRegistered.v1':
        return {
          id: event.data.providerId,
          _position: recorded.position,
          projectId: event.data.projectId,
          name: event.data.name,
          enabled: event.data.enabled,
          region: event.data.region,
          credentialsRef: event.data.credentialsRef,
          createdAt: event.data.createdAt,
          updatedAt: event.data.createdAt,
          deletedAt: null,
        };
      case 'providers.ProviderUpdated.v1':
        return current && { ...current, ...event.data.changes, updatedAt: event.data.updatedAt };
      case 'providers.ProviderDeleted.v1':
        return current && { ...current, deletedAt: event.data.deletedAt, updatedAt: event.data.deletedAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
