import { DomainError } from '../../libs/domain/shared/domain-error';
import type { ProviderKind } from '../../libs/domain/providers/events';
import type { CatalogImage, CatalogOs, CatalogPlan, CatalogRegion } from '../../libs/providers/src/catalog.types';
import { loadCatalog } from './catalog.service';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** The image an instance gets when its create names none (every seeded provider offers it). */
export const DEFAULT_OS = 'ubuntu_24_04_x64_lts';

const matches = (x: { id: string; slug: string }, ref: string) => x.id === ref || x.slug === ref || x.slug.toLowerCase() === ref.toLowerCase();

export interface ValidatedCompute {
  plan: CatalogPlan;
  region: CatalogRegion;
  image: CatalogImage | null;
}

/**
 * Checks a compute request against the projected catalog (slug or id everywhere; regions also by
 * site code). Throws 422 INVALID_REGION / INVALID_PLAN / INVALID_OS (DECISIONS 1, 13).
 */
export class CatalogValidation {
  constructor(private readonly ports: PortsOf<'projections'>) {}

  async validateCompute(input: { providerKind: ProviderKind; region: string; instanceType: string; image?: string | null }): Promise<ValidatedCompute> {
    const [doc] = await loadCatalog(this.ports, [input.providerKind]);
    const snap = doc?.snapshot;
    const region = snap?.regions.find((r) => matches(r, input.region) || r.site.toLowerCase() === input.region.toLowerCase());
    if (!snap || !region) throw new DomainError('INVALID_REGION', `Unknown region/site: ${input.region}`);
    const plan = snap.plans.find((p) => matches(p, input.instanceType)) ?? snap.plans.find((p) => snap.instanceTypes.some((t) => t.id === input.instanceType && t.planSlug === p.slug));
    if (!plan) throw new DomainError('INVALID_PLAN', `Unknown plan/instance type: ${input.instanceType}`);
    if (!plan.regions.includes(region.slug)) throw new DomainError('INVALID_PLAN', `Plan ${plan.slug} is not available in region ${region.slug}`);
    let image: CatalogImage | null = null;
    if (input.image) {
      image = snap.images.find((i) => matches(i, input.image!) || i.osSlug === input.image || snap.operatingSystems.some((o) => o.id === input.image && o.slug === i.osSlug)) ?? null;
      if (!image) throw new DomainError('INVALID_OS', `Unknown operating system/image: ${input.image}`);
      const os = snap.operatingSystems.find((o) => o.slug === image!.osSlug);
      if (os && !os.categories.includes(plan.category)) throw new DomainError('INVALID_OS', `Operating system ${os.slug} is not offered for ${plan.category} plans such as ${plan.slug}`);
    } else {
      // No image named: the provider's default, as a provider console would preselect it.
      image = snap.images.find((i) => i.osSlug === DEFAULT_OS) ?? snap.images[0] ?? null;
    }
    return { plan, region, image };
  }

  /** A region of the provider's catalog by slug, id or site code, else 422 INVALID_REGION. */
  async resolveRegion(providerKind: ProviderKind, ref: string): Promise<CatalogRegion> {
    const [doc] = await loadCatalog(this.ports, [providerKind]);
    const region = doc?.snapshot.regions.find((r) => matches(r, ref) || r.site.toLowerCase() === ref.toLowerCase());
    if (!region) throw new DomainError('INVALID_REGION', `Unknown region/site for ${providerKind}: ${ref}`);
    return region;
  }

  /** A plan of any provider by slug or id (servers). */
  async resolvePlan(ref: string): Promise<CatalogPlan & { providerKind: ProviderKind }> {
    for (const d of await loadCatalog(this.ports)) {
      const p = d.snapshot.plans.find((x) => matches(x, ref));
      if (p) return { ...p, providerKind: d.kind };
    }
    throw new DomainError('INVALID_PLAN', `Unknown plan: ${ref}`);
  }

  /**
   * An operating system by slug or id, as the plan's provider offers it for the plan's category
   * (servers): an OS only another provider offers, or not for this kind of plan (Windows on a GPU
   * plan, Flatcar on a VM), is refused like an unknown one.
   */
  async resolveOs(ref: string, plan: Pick<CatalogPlan, 'slug' | 'category'> & { providerKind: ProviderKind }): Promise<CatalogOs> {
    const [doc] = await loadCatalog(this.ports, [plan.providerKind]);
    const o = doc?.snapshot.operatingSystems.find((x) => matches(x, ref));
    if (!o) throw new DomainError('INVALID_OS', `Unknown operating system: ${ref}`);
    if (!o.categories.includes(plan.category)) throw new DomainError('INVALID_OS', `Operating system ${o.slug} is not offered for ${plan.category} plans such as ${plan.slug}`);
    return o;
  }

  /** The region slugs a list filter names: by slug, id or site code, across providers (none when unknown). */
  async regionSlugs(ref: string): Promise<string[]> {
    const out = new Set<string>();
    for (const d of await loadCatalog(this.ports)) {
      for (const x of d.snapshot.regions) if (x.site.toLowerCase() === ref.toLowerCase() || matches(x, ref)) out.add(x.slug);
    }
    return [...out];
  }

  /** A region by site code, slug or id (servers use sites, e.g. `NYC`). */
  async resolveSite(site: string, preferred?: ProviderKind): Promise<CatalogRegion & { providerKind: ProviderKind }> {
    // The plan's provider first: two providers' catalogs may share a site code.
    const docs = await loadCatalog(this.ports);
    for (const d of preferred ? [...docs.filter((x) => x.kind === preferred), ...docs.filter((x) => x.kind !== preferred)] : docs) {
      const r = d.snapshot.regions.find((x) => x.site.toLowerCase() === site.toLowerCase() || matches(x, site));
      if (r) return { ...r, providerKind: d.kind };
    }
    throw new DomainError('INVALID_REGION', `Unknown region/site: ${site}`);
  }
}

/** Convenience wrappers for other features. */
export const validateCompute = (ports: PortsOf<'projections'>, input: Parameters<CatalogValidation['validateCompute']>[0]) => new CatalogValidation(ports).validateCompute(input);
