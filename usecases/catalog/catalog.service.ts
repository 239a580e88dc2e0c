import { PROVIDER_KINDS, type ProviderKind } from '../../libs/domain/providers/events';
import { catalogProjection, type CatalogDoc } from '../../projections/catalog/catalog.projection';
import { ProjectionCache } from '../../libs/runtime/src/projection-cache';
import { customerSnapshot } from '../../libs/domain/admin/catalog-overlay';
import { loadSettings } from '../admin/platform-settings';
import type { PortsOf } from '../../libs/runtime/src/ports';


/**
 * Every create validates against the catalog, and a provider's catalog document is large: it is kept
 * in memory for up to CATALOG_CACHE_MS, and dropped at once when this process's catalog projection
 * applies a change (a sync answers only after that). A process that does not run the projections
 * (ROLE=api) sees a sync within CATALOG_CACHE_MS.
 */
export const CATALOG_CACHE_MS = 1000;

/**
 * The catalog as customers see it (DECISIONS 18): every customer view and every create's validation
 * reads this, so disabled entries are refused and the prices recorded and quoted carry the margin.
 */
export async function loadCatalog(ports: PortsOf<'projections'>, kinds: readonly ProviderKind[] = PROVIDER_KINDS): Promise<CatalogDoc[]> {
  const [docs, settings] = await Promise.all([loadProviderCatalog(ports, kinds), loadSettings(ports)]);
  return docs.map((doc) => {
    const seen = overlaid.get(doc);
    if (seen && seen.settings === settings) return seen.doc;
    const out = { ...doc, snapshot: customerSnapshot(doc.snapshot, settings) };
    overlaid.set(doc, { settings, doc: out });
    return out;
  });
}

/** Each cached provider document's customer view, computed once per settings document. */
const overlaid = new WeakMap<CatalogDoc, { settings: object; doc: CatalogDoc }>();

/** The projected catalog documents as the providers reported them (admin views), in provider-kind order (shared objects: do not mutate). */
export async function loadProviderCatalog(ports: PortsOf<'projections'>, kinds: readonly ProviderKind[] = PROVIDER_KINDS): Promise<CatalogDoc[]> {
  const cache = ProjectionCache.for<CatalogDoc>(ports, 'catalog', catalogProjection as never, { ttlMs: CATALOG_CACHE_MS, cacheMisses: true });
  const collection = await ports.projections.collection(catalogProjection);
  const found = new Map<ProviderKind, CatalogDoc | null>();
  await Promise.all(kinds.map(async (k) => found.set(k, await cache.get(k, () => collection.get(k)))));
  return kinds.map((k) => found.get(k)).filter((d): d is CatalogDoc => !!d);
}
