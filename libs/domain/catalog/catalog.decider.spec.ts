import { SEED_CATALOG } from '../../providers/src/simulator/catalog-data';
import { deciderSpec } from '../shared/decider-spec';
import { catalogDecider, type SyncCatalog } from './catalog.decider';
import type { CatalogEvent } from './events';

const given = deciderSpec(catalogDecider);
const snapshot = SEED_CATALOG.provider_baremetal;
const sync = (snapshotHash: string, now = '2026-01-01T00:00:00.000Z'): SyncCatalog => ({ type: 'SyncCatalog', kind: 'provider_baremetal', snapshot, snapshotHash, now });
const synced = (snapshotHash: string, syncedAt = '2026-01-01T00:00:00.000Z'): CatalogEvent => ({ type: 'catalog.CatalogSynced.v1', data: { kind: 'provider_baremetal', snapshotHash, syncedAt, snapshot } });

describe('catalog decider', () => {
  it('records the first offer a provider returns, whole', () => {
    given([]).when(sync('h1')).then([synced('h1')]);
  });

  it('records nothing when the offer is unchanged (syncing is idempotent)', () => {
    given([synced('h1')]).when(sync('h1', '2026-01-02T00:00:00.000Z')).thenNothingHappens();
  });

  it('records a changed offer, compared with the latest one only', () => {
    given([synced('h1')]).when(sync('h2', '2026-01-02T00:00:00.000Z')).then([synced('h2', '2026-01-02T00:00:00.000Z')]);
    given([synced('h1'), synced('h2')]).when(sync('h1', '2026-01-03T00:00:00.000Z')).then([synced('h1', '2026-01-03T00:00:00.000Z')]);
  });
});
