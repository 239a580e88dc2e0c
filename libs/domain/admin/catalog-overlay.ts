import type { CatalogPlan, CatalogSnapshot, Price } from '../catalog/catalog.types';
import { withMargin, type CatalogEntrySetting, type PriceOverride } from './settings';

export type CatalogEdits = ReadonlyArray<CatalogEntrySetting & { entryId: string }>;

/** What customers are shown of a provider's catalog: the admin's edits and the margin applied. */
export interface CustomerCatalogSettings {
  marginPercent: number;
  catalog: CatalogEdits;
}

const priced = (p: Price, marginPercent: number): Price => ({ hourlyCents: withMargin(p.hourlyCents, marginPercent), monthlyCents: withMargin(p.monthlyCents, marginPercent), yearlyCents: withMargin(p.yearlyCents, marginPercent) });

/**
 * A provider's snapshot as customers see it (DECISIONS 18): entries the admin disabled are gone (with
 * what depends on them: a disabled plan's instance types and availability, a disabled region from
 * every plan, a disabled OS's images), a price override replaces the provider's price, and the margin
 * is added to every price. Admin views read the snapshot as the provider reported it.
 */
export function customerSnapshot(snapshot: CatalogSnapshot, settings: CustomerCatalogSettings): CatalogSnapshot {
  if (settings.marginPercent === 0 && settings.catalog.length === 0) return snapshot;
  const edits = new Map(settings.catalog.map((e) => [e.entryId, e]));
  const off = (id: string) => edits.get(id)?.enabled === false;
  const override = (id: string): PriceOverride | null => edits.get(id)?.priceOverride ?? null;
  const m = settings.marginPercent;

  const plans = snapshot.plans.filter((p) => !off(p.id));
  const regions = snapshot.regions.filter((r) => !off(r.id));
  const operatingSystems = snapshot.operatingSystems.filter((o) => !off(o.id));
  const planSlugs = new Set(plans.map((p) => p.slug));
  const regionSlugs = new Set(regions.map((r) => r.slug));
  const osSlugs = new Set(operatingSystems.map((o) => o.slug));
  const planBySlug = new Map<string, CatalogPlan>(snapshot.plans.map((p) => [p.slug, p]));

  return {
    ...snapshot,
    regions,
    operatingSystems,
    plans: plans.map((p) => {
      const o = override(p.id);
      return { ...p, regions: p.regions.filter((s) => regionSlugs.has(s)), pricing: { USD: priced(o?.USD ?? p.pricing.USD, m), NGN: priced(o?.NGN ?? p.pricing.NGN, m) } };
    }),
    instanceTypes: snapshot.instanceTypes
      .filter((t) => !off(t.id) && planSlugs.has(t.planSlug))
      .map((t) => {
        const plan = planBySlug.get(t.planSlug);
        const hourly = override(t.id)?.USD?.hourlyCents ?? (plan ? override(plan.id)?.USD?.hourlyCents : undefined) ?? t.hourlyCents;
        return { ...t, hourlyCents: withMargin(hourly, m) };
      }),
    images: snapshot.images.filter((i) => !off(i.id) && osSlugs.has(i.osSlug)),
    availability: snapshot.availability.filter((a) => planSlugs.has(a.planSlug) && regionSlugs.has(a.regionSlug)),
  };
}
