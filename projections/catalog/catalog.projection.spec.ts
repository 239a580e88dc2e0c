import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import type { CatalogSnapshot } from '../../libs/providers/src/catalog.types';
import { logRecorder, projected } from '../../test/support/projector';
import { catalogProjection } from './catalog.projection';

const day = (d: number) => new Date(Date.UTC(2026, 0, d)).toISOString();
/** Stands for the recorded hash of a snapshot (the sync computes it; the model only keeps it). */
const snapshotHash = (s: CatalogSnapshot) => `hash:${s.kind}:${s.plans.map((p) => p.slug).join(',')}`;

describe('catalog read model: one document per provider kind, with when each record first appeared', () => {
  it('keeps the current offer, and each record\'s first sync across later syncs; a record that left and came back is new again', async () => {
    const seed = await SimulatorDriver.instant('provider_publiccloud').fetchCatalog();
    const [first, second] = seed.plans;
    const withPlans = (plans: CatalogSnapshot['plans']): CatalogSnapshot => ({ ...seed, plans });
    const log = logRecorder();
    const c = log.stream('catalog-provider_publiccloud', { kind: 'provider_publiccloud' });
    const synced = (snapshot: CatalogSnapshot, syncedAt: string) => c('catalog.CatalogSynced.v1', { snapshotHash: snapshotHash(snapshot), syncedAt, snapshot });
    const model = await projected(catalogProjection);

    await model.handle(synced(withPlans([first]), day(1)));
    const doc = (await model.get('provider_publiccloud'))!;
    expect(doc).toMatchObject({ kind: 'provider_publiccloud', syncedAt: day(1), createdAt: day(1), snapshotHash: snapshotHash(withPlans([first])) });
    expect(doc.firstSeen[`plans:${first.slug}`]).toBe(day(1));
    expect(doc.firstSeen[`regions:${seed.regions[0].slug}`]).toBe(day(1));

    await model.handle(synced(withPlans([first, second]), day(2)));
    expect(await model.get('provider_publiccloud')).toMatchObject({ syncedAt: day(2), createdAt: day(1), firstSeen: expect.objectContaining({ [`plans:${first.slug}`]: day(1), [`plans:${second.slug}`]: day(2) }) });

    await model.handle(synced(withPlans([second]), day(3)), synced(withPlans([first, second]), day(4)));
    const last = (await model.get('provider_publiccloud'))!;
    expect(last.snapshot.plans.map((p) => p.slug)).toEqual([first.slug, second.slug]);
    expect(last.firstSeen[`plans:${second.slug}`]).toBe(day(2));
    expect(last.firstSeen[`plans:${first.slug}`]).toBe(day(4));
  });

  it('keeps provider kinds apart, and its dates through a replay after a restart', async () => {
    const log = logRecorder();
    const model = await projected(catalogProjection);
    const sync = async (kind: 'provider_baremetal' | 'provider_multicloud', d: number) => {
      const snapshot = await SimulatorDriver.instant(kind).fetchCatalog();
      return log.stream(`catalog-${kind}`, { kind })('catalog.CatalogSynced.v1', { snapshotHash: snapshotHash(snapshot), syncedAt: day(d), snapshot });
    };
    const events = [await sync('provider_baremetal', 1), await sync('provider_multicloud', 2), await sync('provider_baremetal', 3)];
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect((await model.all()).map((d) => [d.id, d.createdAt, d.syncedAt])).toEqual([
      ['provider_baremetal', day(1), day(3)],
      ['provider_multicloud', day(2), day(2)],
    ]);
  });
});
