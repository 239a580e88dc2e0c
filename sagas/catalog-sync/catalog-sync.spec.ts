import { catalogStream } from '../../libs/domain/catalog/events';
import { PROVIDER_KINDS, type ProviderKind } from '../../libs/domain/providers/events';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { ProviderError } from '../../libs/providers/src/driver.port';
import type { CatalogSnapshot } from '../../libs/providers/src/catalog.types';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import { CatalogSyncOperation, seedCatalog, snapshotHash, syncCatalog, type CatalogSyncDeps } from './catalog-sync';

/** A provider whose offer has changed since the seed: one plan fewer. */
class ChangedOffer extends SimulatorDriver {
  override async fetchCatalog(): Promise<CatalogSnapshot> {
    const s = await super.fetchCatalog();
    return { ...s, plans: s.plans.slice(1) };
  }
}

/** The catalog process against a real (embedded) event store, in order: the seed, then syncs. */
describe('catalog sync', () => {
  let store: SqlEventStore;
  let waits: Array<{ position: number | null; names: string[] }> = [];
  let deps: CatalogSyncDeps;
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    deps = { events: store, now: () => '2026-01-01T00:00:00.000Z', waitForProjections: async (position, names) => (waits.push({ position, names }), true) };
  });
  beforeEach(() => {
    waits = [];
  });
  afterAll(async () => {
    await store?.close();
  });
  const synced = async (kind: ProviderKind) => (await store.readStream(catalogStream(kind))).map((e) => e.data);
  const ctx = { metadata: { actor: 'system:catalog' } };

  it('seeds each provider kind\'s offer once, however often the process starts, and waits for the catalog model', async () => {
    await seedCatalog(deps);
    const head = await store.headPosition();
    for (const kind of PROVIDER_KINDS) {
      const snapshot = await SimulatorDriver.instant(kind).fetchCatalog();
      expect(await synced(kind)).toEqual([{ kind, snapshotHash: snapshotHash(snapshot), syncedAt: '2026-01-01T00:00:00.000Z', snapshot }]);
    }
    expect(waits).toEqual([{ position: head, names: ['catalog'] }]);

    await seedCatalog(deps, { provider_baremetal: new ChangedOffer('provider_baremetal') });
    expect(await store.headPosition()).toBe(head);
    // Nothing new to wait for on a second start.
    expect(waits[1]).toEqual({ position: null, names: ['catalog'] });
  });

  it('records a sync only when the offer changed', async () => {
    await seedCatalog(deps);
    expect(await syncCatalog(deps, 'provider_baremetal', ctx)).toEqual({ changed: false, position: null });
    const changed = await syncCatalog(deps, 'provider_baremetal', ctx, new ChangedOffer('provider_baremetal'));
    expect(changed).toEqual({ changed: true, position: await store.headPosition() });
    const history = await synced('provider_baremetal');
    expect(history).toHaveLength(2);
    expect(history[1].snapshotHash).not.toBe(history[0].snapshotHash);
    expect((history[1].snapshot as CatalogSnapshot).plans).toHaveLength((history[0].snapshot as CatalogSnapshot).plans.length - 1);
    expect(waits.at(-1)).toEqual({ position: changed.position, names: ['catalog'] });
  });

  it('runs as the catalog.sync job of a provider kind, and refuses an unknown kind for good', async () => {
    await seedCatalog(deps);
    const op = new CatalogSyncOperation(deps);
    const job = (resourceId: string) => ({ id: 'j1', projectId: null, resourceType: 'catalog', resourceId, operation: 'sync', payload: {} });
    // The simulated offer is the seeded one: the job records nothing.
    expect(await op.execute(job('provider_multicloud'), 1, 'j1:r0:1', ctx)).toEqual({ changed: false, position: null });
    expect(await synced('provider_multicloud')).toHaveLength(1);
    const refused = await op.execute(job('provider_mainframe'), 1, 'j2:r0:1', ctx).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused).toMatchObject({ retryable: false });
  });
});
