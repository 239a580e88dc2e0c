import type { Decider } from '../shared/domain-error';
import type { CatalogSnapshot } from './catalog.types';
import type { ProviderKind } from '../providers/events';
import type { CatalogEvent } from './events';

export type CatalogState = { snapshotHash: string | null };

/** `snapshotHash` is computed by the caller (a digest of the snapshot), keeping the domain free of I/O. */
export type SyncCatalog = { type: 'SyncCatalog'; kind: ProviderKind; snapshot: CatalogSnapshot; snapshotHash: string; now: string };

export const catalogDecider: Decider<SyncCatalog, CatalogEvent, CatalogState> = {
  initialState: () => ({ snapshotHash: null }),
  evolve: (_state, event) => {
    switch (event.type) {
      case 'catalog.CatalogSynced.v1':
        return { snapshotHash: event.data.snapshotHash };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
  // An unchanged offer records nothing: syncing is idempotent.
  decide: (command, state) =>
    state.snapshotHash === command.snapshotHash
      ? []
      : [{ type: 'catalog.CatalogSynced.v1', data: { kind: command.kind, snapshotHash: command.snapshotHash, syncedAt: command.now, snapshot: command.snapshot } }],
};
