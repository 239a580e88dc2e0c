import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { CatalogEvent } from '../../libs/domain/catalog/events';
import { CatalogEventTypes } from '../../libs/domain/catalog/events';
import type { ProviderKind } from '../../libs/domain/providers/events';
import type { CatalogSnapshot } from '../../libs/providers/src/catalog.types';

/**
 * One document per provider kind holding its current offer. The whole catalog is a few hundred
 * records, so routes filter and page it in memory; `firstSeen` gives every record a stable createdAt.
 */
export interface CatalogDoc extends ReadDoc {
  kind: ProviderKind;
  snapshotHash: string;
  syncedAt: string;
  createdAt: string;
  snapshot: CatalogSnapshot;
  /** `<collection>:<slug>` → when the record first appeared in a sync. */
  firstSeen: Record<string, string>;
}

const keysOf = (s: CatalogSnapshot): string[] => [
  ...s.plans.map((x) => `plans:${x.slug}`),
  ...s.regions.map((x) => `regions:${x.slug}`),
  ...s.operatingSystems.map((x) => `operatingSystems:${x.slug}`),
  ...s.instanceTypes.map((x) => `instanceTypes:${x.slug}`),
  ...s.images.map((x) => `images:${x.slug}`),
];

/** Serves every catalog route of spec 4.5 and the compute validation. */
export const catalogProjection: DocumentProjection<CatalogDoc> = {
  name: 'catalog',
  version: 1,
  eventTypes: [CatalogEventTypes.CatalogSynced],
  documentId: (event) => (event.data as { kind: string }).kind,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as CatalogEvent;
    switch (event.type) {
      case 'catalog.CatalogSynced.v1': {
        const firstSeen: Record<string, string> = {};
        for (const k of keysOf(event.data.snapshot)) firstSeen[k] = current?.firstSeen[k] ?? event.data.syncedAt;
        return {
          id: event.data.kind,
          _position: recorded.position,
          kind: event.data.kind,
          snapshotHash: event.data.snapshotHash,
          syncedAt: event.data.syncedAt,
          createdAt: current?.createdAt ?? event.data.syncedAt,
          snapshot: event.data.snapshot,
          firstSeen,
        };
      }
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
};
