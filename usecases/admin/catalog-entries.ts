import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { CatalogPrice, PriceOverride } from '../../libs/domain/admin/settings';
import type { ProviderKind } from '../../libs/domain/providers/events';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { CatalogDoc } from '../../projections/catalog/catalog.projection';
import type { PlatformSettingsDoc } from '../../projections/platform-settings/platform-settings.projection';
import { loadProviderCatalog } from '../catalog/catalog.service';
import { InjectPorts } from '../inject-ports';
import { loadSettings } from './platform-settings';

export const CATALOG_ENTRY_TYPE = 'catalog-entries';
export const ENTRY_TYPES = ['plan', 'instance-type', 'region', 'image', 'operating-system'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];
export const PRICED: readonly EntryType[] = ['plan', 'instance-type'];

/** A catalog entry as the admin sees it (the HTTP edge's schema describes the same fields). */
export interface EntryAttributes {
  resourceType: EntryType;
  slug: string;
  name: string;
  providerKinds: ProviderKind[];
  enabled: boolean;
  providerPricing: { USD: { hourlyCents: number; monthlyCents?: number; yearlyCents?: number }; NGN?: { hourlyCents: number; monthlyCents?: number; yearlyCents?: number } } | null;
  priceOverride: PriceOverride | null;
  editedAt: string | null;
  createdAt: string;
}
export type Entry = { id: string; type: string; attributes: EntryAttributes };

/** Every catalog entry of every provider as reported (one per id), with the admin's edits. */
function entriesOf(docs: CatalogDoc[], settings: PlatformSettingsDoc): Entry[] {
  const edits = new Map(settings.catalog.map((e) => [e.entryId, e]));
  const byId = new Map<string, Entry>();
  const add = (d: CatalogDoc, resourceType: EntryType, collection: string, x: { id: string; slug: string; name: string }, providerPricing: EntryAttributes['providerPricing']) => {
    const seen = byId.get(x.id);
    if (seen) {
      if (!seen.attributes.providerKinds.includes(d.kind)) seen.attributes.providerKinds.push(d.kind);
      return;
    }
    const edit = edits.get(x.id);
    const attributes: EntryAttributes = { resourceType, slug: x.slug, name: x.name, providerKinds: [d.kind], enabled: edit?.enabled ?? true, providerPricing, priceOverride: edit?.priceOverride ?? null, editedAt: edit?.updatedAt ?? null, createdAt: d.firstSeen[`${collection}:${x.slug}`] ?? d.createdAt };
    byId.set(x.id, { id: x.id, type: CATALOG_ENTRY_TYPE, attributes });
  };
  for (const d of docs) {
    const s = d.snapshot;
    for (const p of s.plans) add(d, 'plan', 'plans', p, p.pricing as { USD: CatalogPrice; NGN: CatalogPrice });
    for (const t of s.instanceTypes) add(d, 'instance-type', 'instanceTypes', t, { USD: { hourlyCents: t.hourlyCents } });
    for (const r of s.regions) add(d, 'region', 'regions', r, null);
    for (const i of s.images) add(d, 'image', 'images', i, null);
    for (const o of s.operatingSystems) add(d, 'operating-system', 'operatingSystems', o, null);
  }
  return [...byId.values()];
}

export class AdminCatalogEntries extends Query<Entry[]> {}

@QueryHandler(AdminCatalogEntries)
export class AdminCatalogEntriesHandler implements IQueryHandler<AdminCatalogEntries> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute(): Promise<Entry[]> {
    const [docs, settings] = await Promise.all([loadProviderCatalog(this.ports), loadSettings(this.ports)]);
    return entriesOf(docs, settings);
  }
}

export const ADMIN_CATALOG_HANDLERS = [AdminCatalogEntriesHandler];
