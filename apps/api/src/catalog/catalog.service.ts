import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { handleCommand, toNewEvent, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { WrongExpectedRevisionError } from '../../../../libs/eventstore/src/event-store.port';
import { catalogDecider } from '../../../../libs/domain/catalog/catalog.decider';
import { catalogStream, type CatalogSynced } from '../../../../libs/domain/catalog/events';
import { PROVIDER_KINDS, type ProviderKind } from '../../../../libs/domain/providers/events';
import type { ProviderDriver } from '../../../../libs/providers/src/driver.port';
import type { CatalogSnapshot } from '../../../../libs/providers/src/catalog.types';
import { SimulatorDriver } from '../../../../libs/providers/src/simulator/simulator-driver';
import { catalogProjection, type CatalogDoc } from '../../../../projections/catalog/catalog.projection';
import type { Platform } from '../platform/platform';
import { ProjectionCache } from '../common/projection-cache';

export const snapshotHash = (s: CatalogSnapshot): string => createHash('sha256').update(JSON.stringify(s)).digest('hex');

const systemContext = (what: string): CommandContext => ({ metadata: { actor: 'system:catalog', requestId: what, correlationId: what } });

/** Appends the seeded catalog of every provider kind once (a second start finds the streams and does nothing). */
export async function seedCatalog(platform: Platform, drivers: Partial<Record<ProviderKind, ProviderDriver>> = {}): Promise<void> {
  let last: number | null = null;
  for (const kind of PROVIDER_KINDS) {
    const driver = drivers[kind] ?? SimulatorDriver.instant(kind);
    if (!driver.fetchCatalog) continue;
    const snapshot = await driver.fetchCatalog();
    const event: CatalogSynced = { type: 'catalog.CatalogSynced.v1', data: { kind, snapshotHash: snapshotHash(snapshot), syncedAt: new Date().toISOString(), snapshot } };
    try {
      const r = await platform.events.append(catalogStream(kind), [toNewEvent(event, systemContext(`seed-${uuidv7()}`))], { expectedRevision: 'no_stream' });
      last = r.position;
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
    }
  }
  await platform.waitForProjections(last, [catalogProjection.name]);
}

/** Fetches the offer through the driver and records it when it changed. Returns the position (null: unchanged). */
export async function syncCatalog(platform: Platform, kind: ProviderKind, ctx: CommandContext, driver: ProviderDriver = SimulatorDriver.instant(kind)): Promise<{ changed: boolean; position: number | null }> {
  if (!driver.fetchCatalog) return { changed: false, position: null };
  const snapshot = await driver.fetchCatalog();
  const r = await handleCommand(platform.events, catalogStream(kind), catalogDecider, { type: 'SyncCatalog', kind, snapshot, snapshotHash: snapshotHash(snapshot), now: new Date().toISOString() }, ctx);
  await platform.waitForProjections(r.position, [catalogProjection.name]);
  return { changed: r.position !== null, position: r.position };
}

/**
 * Every create validates against the catalog, and a provider's catalog document is large: it is kept
 * in memory for up to CATALOG_CACHE_MS, and dropped at once when this process's catalog projection
 * applies a change (a sync answers only after that). A process that does not run the projections
 * (ROLE=api) sees a sync within CATALOG_CACHE_MS.
 */
export const CATALOG_CACHE_MS = 1000;

/** The projected catalog documents, in provider-kind order (shared objects: do not mutate). */
export async function loadCatalog(platform: Platform, kinds: readonly ProviderKind[] = PROVIDER_KINDS): Promise<CatalogDoc[]> {
  const cache = ProjectionCache.for<CatalogDoc>(platform, 'catalog', catalogProjection as never, { ttlMs: CATALOG_CACHE_MS, cacheMisses: true });
  const collection = await platform.projections.collection(catalogProjection);
  const found = new Map<ProviderKind, CatalogDoc | null>();
  await Promise.all(kinds.map(async (k) => found.set(k, await cache.get(k, () => collection.get(k)))));
  return kinds.map((k) => found.get(k)).filter((d): d is CatalogDoc => !!d);
}
