import { principalDataScope, type Principal } from '../../libs/application/src/actor';
import { toResource, type Resource } from '../../libs/application/src/views';
import { listResult } from '../../libs/application/src/views';
import { AppError, notFound } from '../../libs/application/src/errors';
import type { ListQuery } from '../../libs/application/src/views';
import { PROVIDER_KINDS, type ProviderKind } from '../../libs/domain/providers/events';
import type { CatalogRegion, ServerCategory } from '../../libs/providers/src/catalog.types';
import { providersProjection } from '../../projections/providers/providers.projection';
import type { CatalogDoc } from '../../projections/catalog/catalog.projection';
import { findProjectProvider } from '../providers/find-provider';
import { loadCatalog } from './catalog.service';
import type { PortsOf } from '../../libs/runtime/src/ports';

export const CATEGORIES: ServerCategory[] = ['bare-metal', 'bare-metal-gpu', 'virtual-machine', 'virtual-machine-gpu'];
export const TIERS = ['all', 'core-optimized', 'memory-optimized', 'storage-optimized'] as const;
const BILLING = ['hourly', 'monthly', 'yearly'] as const;

/** A single view's path: the item's id or slug. */
type IdParams = { id: string };
/** A single item's answer: the item as the `data` of its document. */
const resource = <A extends object>(type: string, id: string, attributes: A) => ({ data: toResource(type, id, attributes) });
/** The earliest of some creation times: when a derived record (a city, a category) first existed. */
const earliest = (times: string[]) => times.reduce((a, b) => (b < a ? b : a));

type Item = Resource<Record<string, unknown>>;
export const matches = (x: { id: string; slug: string }, ref: string) => x.id === ref || x.slug === ref || x.slug.toLowerCase() === ref.toLowerCase();
const projectOf = (p: Principal) => principalDataScope(p) ?? '';

/** Sorts and pages catalog records in memory (the whole catalog is small; see CatalogDoc); the admin catalog views too. */
export function page(items: Item[], q: ListQuery<unknown>) {
  const sorted = [...items].sort((a, b) => {
    for (const k of q.sort) {
      const av = String(a.attributes[k.field] ?? '');
      const bv = String(b.attributes[k.field] ?? '');
      if (av !== bv) return av < bv ? -k.direction : k.direction;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return listResult(sorted.slice(q.skip, q.skip + q.limit), sorted.length);
}

const one = (item: Item | undefined, what: string) => {
  if (!item) throw notFound(`${what} not found`);
  return resource(item.type, item.id, item.attributes);
};

function uniqueBySlug<T extends { slug: string }>(rows: T[]): T[] {
  const seen = new Map<string, T>();
  for (const r of rows) if (!seen.has(r.slug)) seen.set(r.slug, r);
  return [...seen.values()];
}

/**
 * The catalog's read views (spec 4.5): records and derived views of the catalog read model, paged in
 * memory (the whole catalog is small; see CatalogDoc). Served through the QueryBus by CatalogQuery.
 */
export class CatalogViews {
  constructor(private readonly ports: PortsOf<'events' | 'projections'>) {}

  // ------------------------------------------------------------------ record views
  private async docs(kinds?: readonly ProviderKind[]) {
    return loadCatalog(this.ports, kinds);
  }

  private plans(docs: CatalogDoc[]): Item[] {
    return docs.flatMap((d) =>
      d.snapshot.plans.map((p) => {
        const { id, ...rest } = p;
        return { id, type: 'plans', attributes: { ...rest, providerKind: d.kind, specs: { cpuCores: p.cpuCores, cpuType: p.cpuType, memoryGb: p.memoryGb, diskGb: p.diskGb, diskType: p.diskType, gpuCount: p.gpuCount, gpuType: p.gpuType, bandwidthTb: p.bandwidthTb }, createdAt: d.firstSeen[`plans:${p.slug}`] ?? d.createdAt } };
      }),
    );
  }

  private regions(docs: CatalogDoc[], type = 'regions'): Item[] {
    return docs.flatMap((d) => d.snapshot.regions.map(({ id, ...r }) => ({ id, type, attributes: { ...r, providerKind: d.kind, createdAt: d.firstSeen[`regions:${r.slug}`] ?? d.createdAt } })));
  }

  private operatingSystems(docs: CatalogDoc[]): Item[] {
    const rows = docs.flatMap((d) => d.snapshot.operatingSystems.map((o) => ({ ...o, createdAt: d.firstSeen[`operatingSystems:${o.slug}`] ?? d.createdAt })));
    return uniqueBySlug(rows).map(({ id, ...o }) => ({ id, type: 'operating-systems', attributes: { ...o, providerKinds: docs.filter((d) => d.snapshot.operatingSystems.some((x) => x.slug === o.slug)).map((d) => d.kind) } }));
  }

  private instanceTypes(docs: CatalogDoc[]): Item[] {
    return docs.flatMap((d) => d.snapshot.instanceTypes.map(({ id, ...t }) => ({ id, type: 'instance-types', attributes: { ...t, providerKind: d.kind, createdAt: d.firstSeen[`instanceTypes:${t.slug}`] ?? d.createdAt } })));
  }

  private images(docs: CatalogDoc[]): Item[] {
    return docs.flatMap((d) => d.snapshot.images.map(({ id, ...i }) => ({ id, type: 'images', attributes: { ...i, providerKind: d.kind, createdAt: d.firstSeen[`images:${i.slug}`] ?? d.createdAt } })));
  }

  /** When the catalog began: the first provider catalog recorded (for views that derive from all of it). */
  private async catalogCreatedAt(): Promise<string> {
    const docs = await this.docs();
    return docs.length ? earliest(docs.map((d) => d.createdAt)) : new Date(0).toISOString();
  }

  /** Kinds selected by `providerId` (a provider of the caller's project), else all kinds. */
  private async kindsFor(principal: Principal, providerId?: string): Promise<readonly ProviderKind[]> {
    if (!providerId) return PROVIDER_KINDS;
    const p = await findProjectProvider(this.ports, projectOf(principal), providerId);
    // As on creates: a disabled provider offers nothing to this project.
    if (!p || !p.enabled) throw new AppError('PROVIDER_NOT_FOUND', `Provider ${providerId} not found in this project${p ? ' (disabled)' : ''}`);
    return [p.name];
  }

  // ------------------------------------------------------------------ plans, regions, OS








  // ------------------------------------------------------------------ server catalog








  // ------------------------------------------------------------------ /v1/catalog





  private resources(docs: CatalogDoc[]): Item[] {
    const tag = (kind: string) => (i: Item) => ({ id: i.id, type: 'catalog-resources', attributes: { resourceType: kind, ...i.attributes } });
    return [...this.instanceTypes(docs).map(tag('instance-type')), ...this.regions(docs).map(tag('region')), ...this.images(docs).map(tag('image'))];
  }

  async listPlans(q: ListQuery<{ category?: string; region?: string; providerKind?: ProviderKind }>) {
    const docs = await this.docs(q.filters.providerKind ? [q.filters.providerKind] : undefined);
    const regionSlugs = q.filters.region ? this.regions(docs).filter((r) => matches({ id: r.id, slug: String(r.attributes.slug) }, q.filters.region!) || r.attributes.site === q.filters.region).map((r) => r.attributes.slug) : null;
    return page(this.plans(docs).filter((p) => (!q.filters.category || p.attributes.category === q.filters.category) && (!regionSlugs || (p.attributes.regions as string[]).some((r) => regionSlugs.includes(r)))), q);
  }

  async getPlan(p: IdParams) {
    return one(this.plans(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, p.id)), 'Plan');
  }

  async listRegions(q: ListQuery<{ providerKind?: ProviderKind; macroregion?: string }>) {
    return page(this.regions(await this.docs(q.filters.providerKind ? [q.filters.providerKind] : undefined)).filter((r) => !q.filters.macroregion || r.attributes.macroregion === q.filters.macroregion), q);
  }

  async getRegion(p: IdParams) {
    return one(this.regions(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, p.id) || x.attributes.site === p.id), 'Region');
  }

  async listOs(q: ListQuery<unknown>) {
    return page(this.operatingSystems(await this.docs()), q);
  }

  async getOs(p: IdParams) {
    return one(this.operatingSystems(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, p.id)), 'Operating system');
  }

  async listOsAlias(q: ListQuery<unknown>) {
    return this.listOs(q);
  }

  async getOsAlias(p: IdParams) {
    return this.getOs(p);
  }

  async categories(q: ListQuery<unknown>) {
    const names: Record<ServerCategory, string> = { 'bare-metal': 'Bare metal', 'bare-metal-gpu': 'Bare metal GPU', 'virtual-machine': 'Virtual machine', 'virtual-machine-gpu': 'Virtual machine GPU' };
    const createdAt = await this.catalogCreatedAt();
    return page(CATEGORIES.map((c) => ({ id: c, type: 'server-categories', attributes: { slug: c, name: names[c], createdAt } })), q);
  }

  async tiers(q: ListQuery<unknown>) {
    const createdAt = await this.catalogCreatedAt();
    return page(TIERS.map((t) => ({ id: t, type: 'server-tiers', attributes: { slug: t, name: t === 'all' ? 'All' : t.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase()), createdAt } })), q);
  }

  async macroregions(q: ListQuery<unknown>) {
    const regions = this.regions(await this.docs()).map((r) => r.attributes as unknown as CatalogRegion & { createdAt: string });
    const names = [...new Set(regions.map((r) => r.macroregion))];
    return page(
      names.map((m) => {
        const in_ = regions.filter((r) => r.macroregion === m);
        return { id: m, type: 'macroregions', attributes: { slug: m, name: m.replace(/-/g, ' ').replace(/\b./g, (c) => c.toUpperCase()), regions: uniqueBySlug(in_).map((r) => r.slug), createdAt: earliest(in_.map((r) => r.createdAt)) } };
      }),
      q,
    );
  }

  async cities(q: ListQuery<{ region?: string }>) {
    const r = q.filters.region;
    const regions = this.regions(await this.docs())
      .map((x) => ({ ...(x.attributes as unknown as CatalogRegion & { createdAt: string }), id: x.id }))
      .filter((x) => !r || x.macroregion === r || matches(x, r) || x.site === r);
    const byCity = new Map<string, typeof regions>();
    for (const x of regions) byCity.set(`${x.city}|${x.country}`, [...(byCity.get(`${x.city}|${x.country}`) ?? []), x]);
    return page(
      [...byCity.entries()].map(([k, rs]) => ({
        id: k.toLowerCase().replace(/[^a-z0-9|]+/g, '-').replace('|', '-'),
        type: 'cities',
        attributes: { name: rs[0].city, country: rs[0].country, macroregion: rs[0].macroregion, sites: rs.map((x) => x.site), regions: rs.map((x) => x.slug), createdAt: earliest(rs.map((x) => x.createdAt)) },
      })),
      q,
    );
  }

  async servers(q: ListQuery<{ category?: string; tier?: string; region?: string }>) {
    const docs = await this.docs();
    const r = q.filters.region;
    const regionSlugs = r ? docs.flatMap((d) => d.snapshot.regions).filter((x) => x.macroregion === r || matches(x, r) || x.site === r).map((x) => x.slug) : null;
    const items = this.plans(docs)
      .filter((p) => (!q.filters.category || p.attributes.category === q.filters.category) && (!q.filters.tier || q.filters.tier === 'all' || p.attributes.tier === q.filters.tier))
      .filter((p) => !regionSlugs || (p.attributes.regions as string[]).some((s) => regionSlugs.includes(s)))
      .map((p) => ({ ...p, type: 'server-offers' }));
    return page(items, q);
  }

  async server(p: IdParams) {
    const plan = this.plans(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, p.id));
    return one(plan && { ...plan, type: 'server-offers' }, 'Server offer');
  }

  async osVersions(q: ListQuery<{ category?: ServerCategory }>) {
    return page(this.operatingSystems(await this.docs()).filter((o) => !q.filters.category || (o.attributes.categories as string[]).includes(q.filters.category)).map((o) => ({ ...o, type: 'os-versions' })), q);
  }

  async billingOptions(q: ListQuery<{ serverId?: string }>) {
    let pricing = null as { USD: Record<string, number>; NGN: Record<string, number> } | null;
    if (q.filters.serverId) {
      const plan = this.plans(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, q.filters.serverId!));
      if (!plan) throw notFound('Server offer not found');
      pricing = plan.attributes.pricing as { USD: Record<string, number>; NGN: Record<string, number> };
    }
    const discount = { hourly: 0, monthly: 10, yearly: 23.5 };
    const priced = pricing;
    const createdAt = await this.catalogCreatedAt();
    return page(
      BILLING.map((b) => ({
        id: b,
        type: 'billing-options',
        attributes: { slug: b, name: b[0].toUpperCase() + b.slice(1), discountPercent: discount[b], ...(priced ? { priceCents: { USD: priced.USD[`${b}Cents`], NGN: priced.NGN[`${b}Cents`] } } : {}), createdAt },
      })),
      q,
    );
  }

  async catalog(principal: Principal) {
    const providers = await (await this.ports.projections.collection(providersProjection)).find({ filter: { projectId: projectOf(principal), deletedAt: null, enabled: true } });
    const kinds = PROVIDER_KINDS.filter((k) => providers.items.some((p) => p.name === k));
    const docs = await this.docs(kinds);
    const withProviders = (items: Item[]) => items.map((i) => ({ id: i.id, ...i.attributes, providerIds: providers.items.filter((p) => p.name === i.attributes.providerKind).map((p) => p.id) }));
    return resource('catalog', 'catalog', { providers: providers.items.map((p) => ({ id: p.id, name: p.name })), instanceTypes: withProviders(this.instanceTypes(docs)), regions: withProviders(this.regions(docs)), images: withProviders(this.images(docs)) });
  }

  async all() {
    const docs = await this.docs();
    return resource('catalog', 'all', { providers: docs.map((d) => ({ ...d.snapshot, kind: d.kind, syncedAt: d.syncedAt })) });
  }

  async catalogInstanceTypes(principal: Principal, q: ListQuery<{ providerId?: string }>) {
    return page(this.instanceTypes(await this.docs(await this.kindsFor(principal, q.filters.providerId))), q);
  }

  async catalogRegions(principal: Principal, q: ListQuery<{ providerId?: string }>) {
    return page(this.regions(await this.docs(await this.kindsFor(principal, q.filters.providerId))), q);
  }

  async catalogImages(principal: Principal, q: ListQuery<{ providerId?: string }>) {
    return page(this.images(await this.docs(await this.kindsFor(principal, q.filters.providerId))), q);
  }

  async catalogResources(principal: Principal, q: ListQuery<{ providerId?: string }>) {
    return page(this.resources(await this.docs(await this.kindsFor(principal, q.filters.providerId))), q);
  }

  async catalogResource(p: IdParams) {
    return one(this.resources(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, p.id)), 'Catalog resource');
  }

  async catalogRegion(principal: Principal, p: IdParams) {
    const region = this.regions(await this.docs()).find((x) => matches({ id: x.id, slug: String(x.attributes.slug) }, p.id) || x.attributes.site === p.id);
    if (!region) throw notFound('Region not found');
    const providers = await (await this.ports.projections.collection(providersProjection)).find({ filter: { projectId: projectOf(principal), deletedAt: null, name: String(region.attributes.providerKind) } });
    return resource('regions', region.id, { ...region.attributes, providers: providers.items.map((x) => ({ id: x.id, name: x.name, enabled: x.enabled })) });
  }

  async availability(q: ListQuery<{ plan?: string; region?: string; providerKind?: ProviderKind; available?: 'true' | 'false' }>) {
    const docs = await this.docs(q.filters.providerKind ? [q.filters.providerKind] : undefined);
    const items = docs.flatMap((d) =>
      d.snapshot.availability
        .filter((a) => (!q.filters.plan || a.planSlug === q.filters.plan || d.snapshot.plans.some((p) => p.id === q.filters.plan && p.slug === a.planSlug)) && (!q.filters.region || a.regionSlug === q.filters.region || d.snapshot.regions.some((r) => (r.id === q.filters.region || r.site === q.filters.region) && r.slug === a.regionSlug)) && (!q.filters.available || String(a.available) === q.filters.available))
        .map((a) => {
          // A plan-region pair exists once both do.
          const seen = [d.firstSeen[`plans:${a.planSlug}`] ?? d.createdAt, d.firstSeen[`regions:${a.regionSlug}`] ?? d.createdAt];
          const createdAt = seen[0] > seen[1] ? seen[0] : seen[1];
          return { id: `${d.kind}:${a.planSlug}@${a.regionSlug}`, type: 'availability', attributes: { plan: a.planSlug, region: a.regionSlug, providerKind: d.kind, available: a.available, stockLevel: a.stockLevel, createdAt } };
        }),
    );
    return page(items, q);
  }
}
