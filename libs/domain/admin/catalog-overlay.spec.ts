import type { CatalogSnapshot } from '../catalog/catalog.types';
import { customerSnapshot } from './catalog-overlay';

const price = (h: number) => ({ hourlyCents: h, monthlyCents: h * 730, yearlyCents: h * 8760 });
const snapshot: CatalogSnapshot = {
  kind: 'provider_publiccloud',
  regions: [
    { id: 'r1', slug: 'east', name: 'East', city: 'Ashburn', country: 'US', site: 'E1', macroregion: 'na', zones: [] },
    { id: 'r2', slug: 'west', name: 'West', city: 'Portland', country: 'US', site: 'W1', macroregion: 'na', zones: [] },
  ],
  plans: [
    { id: 'p1', slug: 'small', name: 'Small', category: 'virtual-machine', tier: 'core-optimized', cpuCores: 2, cpuType: 'x', memoryGb: 4, diskGb: 80, diskType: 'ssd', gpuCount: 0, gpuType: null, bandwidthTb: 1, pricing: { USD: price(10), NGN: price(15500) }, regions: ['east', 'west'] },
    { id: 'p2', slug: 'large', name: 'Large', category: 'virtual-machine', tier: 'core-optimized', cpuCores: 8, cpuType: 'x', memoryGb: 32, diskGb: 320, diskType: 'ssd', gpuCount: 0, gpuType: null, bandwidthTb: 4, pricing: { USD: price(40), NGN: price(62000) }, regions: ['east'] },
  ],
  operatingSystems: [{ id: 'o1', slug: 'ubuntu', name: 'Ubuntu', version: '24.04', family: 'ubuntu', categories: ['virtual-machine'] }],
  instanceTypes: [
    { id: 't1', slug: 'small', name: 'small', planSlug: 'small', vcpus: 2, memoryGb: 4, diskGb: 80, gpuCount: 0, gpuType: null, hourlyCents: 10 },
    { id: 't2', slug: 'large', name: 'large', planSlug: 'large', vcpus: 8, memoryGb: 32, diskGb: 320, gpuCount: 0, gpuType: null, hourlyCents: 40 },
  ],
  images: [{ id: 'i1', slug: 'ubuntu-img', name: 'Ubuntu', osSlug: 'ubuntu', version: '24.04', family: 'ubuntu', minDiskGb: 10 }],
  availability: [
    { planSlug: 'small', regionSlug: 'east', available: true, stockLevel: 'high' },
    { planSlug: 'large', regionSlug: 'east', available: true, stockLevel: 'low' },
    { planSlug: 'small', regionSlug: 'west', available: true, stockLevel: 'high' },
  ],
};

describe('the catalog customers see', () => {
  it('is the provider snapshot itself with no margin and no edits', () => {
    expect(customerSnapshot(snapshot, { marginPercent: 0, catalog: [] })).toBe(snapshot);
  });

  it('adds the margin to every price, plans and instance types alike', () => {
    const s = customerSnapshot(snapshot, { marginPercent: 25, catalog: [] });
    expect(s.plans[0].pricing.USD).toEqual({ hourlyCents: 13, monthlyCents: 9125, yearlyCents: 109500 });
    expect(s.plans[0].pricing.NGN.hourlyCents).toBe(19375);
    expect(s.instanceTypes.map((t) => t.hourlyCents)).toEqual([13, 50]);
    expect(snapshot.plans[0].pricing.USD.hourlyCents).toBe(10);
  });

  it('replaces a price by its override before the margin (an instance type follows its plan\'s)', () => {
    const s = customerSnapshot(snapshot, { marginPercent: 10, catalog: [{ entryId: 'p1', enabled: true, priceOverride: { USD: price(20) }, updatedAt: 'x' }] });
    expect(s.plans[0].pricing.USD.hourlyCents).toBe(22);
    expect(s.plans[0].pricing.NGN.hourlyCents).toBe(17050);
    expect(s.instanceTypes[0].hourlyCents).toBe(22);
  });

  it('hides disabled entries and what depends on them', () => {
    const s = customerSnapshot(snapshot, {
      marginPercent: 0,
      catalog: [
        { entryId: 'p2', enabled: false, priceOverride: null, updatedAt: 'x' },
        { entryId: 'r2', enabled: false, priceOverride: null, updatedAt: 'x' },
        { entryId: 'o1', enabled: false, priceOverride: null, updatedAt: 'x' },
      ],
    });
    expect(s.plans.map((p) => [p.slug, p.regions])).toEqual([['small', ['east']]]);
    expect(s.instanceTypes.map((t) => t.slug)).toEqual(['small']);
    expect(s.regions.map((r) => r.slug)).toEqual(['east']);
    expect(s.images).toEqual([]);
    expect(s.availability).toEqual([{ planSlug: 'small', regionSlug: 'east', available: true, stockLevel: 'high' }]);
  });
});
