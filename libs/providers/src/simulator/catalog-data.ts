import { createHash } from 'node:crypto';
import type { ProviderKind } from '../driver.port';
import type { AvailabilityEntry, CatalogImage, CatalogInstanceType, CatalogOs, CatalogPlan, CatalogRegion, CatalogSnapshot, Price, ServerCategory, ServerTier } from '../catalog.types';

/** Stable ids: a prefix and a hash of the slug, so every start and every process agrees. */
export const catalogId = (prefix: string, slug: string) => `${prefix}_${createHash('sha256').update(slug).digest('hex').slice(0, 20)}`;

/** Seed rate for NGN list prices (kobo per USD cent); live conversion uses the billing rates table. */
const NGN_PER_USD = 1550;
const HOURS_PER_MONTH = 730;

function price(hourlyUsdCents: number): { USD: Price; NGN: Price } {
  const p = (hourly: number): Price => {
    const monthly = Math.round(hourly * HOURS_PER_MONTH * 0.9); // monthly commitment: 10% off
    return { hourlyCents: hourly, monthlyCents: monthly, yearlyCents: Math.round(monthly * 12 * 0.85) }; // yearly: further 15% off
  };
  return { USD: p(hourlyUsdCents), NGN: p(hourlyUsdCents * NGN_PER_USD) };
}

type RegionRow = [slug: string, name: string, city: string, country: string, site: string, macroregion: string, zones: number];
const region = ([slug, name, city, country, site, macroregion, zones]: RegionRow): CatalogRegion => ({
  id: catalogId('reg', slug),
  slug,
  name,
  city,
  country,
  site,
  macroregion,
  zones: Array.from({ length: zones }, (_, i) => `${slug}-${String.fromCharCode(97 + i)}`),
});

type PlanRow = [slug: string, name: string, category: ServerCategory, tier: ServerTier, cores: number, cpu: string, mem: number, disk: number, diskType: 'nvme' | 'ssd' | 'hdd', gpus: number, gpuType: string | null, hourlyCents: number, regions: string[]];
const plan = ([slug, name, category, tier, cpuCores, cpuType, memoryGb, diskGb, diskType, gpuCount, gpuType, hourly, regions]: PlanRow): CatalogPlan => ({
  id: catalogId('plan', slug),
  slug,
  name,
  category,
  tier,
  cpuCores,
  cpuType,
  memoryGb,
  diskGb,
  diskType,
  gpuCount,
  gpuType,
  bandwidthTb: category.startsWith('bare-metal') ? 20 : 5,
  pricing: price(hourly),
  regions,
});

const BM: ServerCategory[] = ['bare-metal', 'bare-metal-gpu'];
const VM: ServerCategory[] = ['virtual-machine', 'virtual-machine-gpu'];
const ALL: ServerCategory[] = [...BM, ...VM];

type OsRow = [slug: string, name: string, version: string, family: CatalogOs['family'], categories: ServerCategory[]];
const os = ([slug, name, version, family, categories]: OsRow): CatalogOs => ({ id: catalogId('os', slug), slug, name, version, family, categories });

const OPERATING_SYSTEMS: OsRow[] = [
  ['ubuntu_24_04_x64_lts', 'Ubuntu 24.04 LTS', '24.04', 'ubuntu', ALL],
  ['ubuntu_22_04_x64_lts', 'Ubuntu 22.04 LTS', '22.04', 'ubuntu', ALL],
  ['debian_12', 'Debian 12 (bookworm)', '12', 'debian', ALL],
  ['rockylinux_9', 'Rocky Linux 9', '9.4', 'rocky', ALL],
  ['almalinux_9', 'AlmaLinux 9', '9.4', 'almalinux', ALL],
  ['windows_2022', 'Windows Server 2022 Datacenter', '2022', 'windows', ['bare-metal', 'virtual-machine']],
  ['flatcar_stable', 'Flatcar Container Linux (stable)', '3975', 'flatcar', BM],
];

const BAREMETAL_REGIONS: RegionRow[] = [
  ['NYC', 'New York', 'New York', 'US', 'NYC', 'north-america', 2],
  ['DAL', 'Dallas', 'Dallas', 'US', 'DAL', 'north-america', 2],
  ['LAX', 'Los Angeles', 'Los Angeles', 'US', 'LAX', 'north-america', 1],
  ['AMS', 'Amsterdam', 'Amsterdam', 'NL', 'AMS', 'europe', 2],
  ['FRA', 'Frankfurt', 'Frankfurt', 'DE', 'FRA', 'europe', 2],
  ['LON', 'London', 'London', 'GB', 'LON', 'europe', 1],
  ['SAO', 'Sao Paulo', 'Sao Paulo', 'BR', 'SAO', 'latin-america', 1],
  ['SIN', 'Singapore', 'Singapore', 'SG', 'SIN', 'asia-pacific', 1],
  ['TYO', 'Tokyo', 'Tokyo', 'JP', 'TYO', 'asia-pacific', 1],
  ['LOS', 'Lagos', 'Lagos', 'NG', 'LOS', 'africa', 1],
];

const MULTICLOUD_REGIONS: RegionRow[] = [
  ['us-east', 'US East (Virginia)', 'Ashburn', 'US', 'IAD', 'north-america', 3],
  ['us-west', 'US West (Oregon)', 'Portland', 'US', 'PDX', 'north-america', 3],
  ['eu-west', 'EU West (Dublin)', 'Dublin', 'IE', 'DUB', 'europe', 3],
  ['eu-central', 'EU Central (Frankfurt)', 'Frankfurt', 'DE', 'FRA2', 'europe', 3],
  ['ap-southeast', 'Asia Pacific (Singapore)', 'Singapore', 'SG', 'SIN2', 'asia-pacific', 2],
  ['af-west', 'Africa West (Lagos)', 'Lagos', 'NG', 'LOS2', 'africa', 2],
];

const PUBLICCLOUD_REGIONS: RegionRow[] = [
  ['us-east-1', 'US East (N. Virginia)', 'Ashburn', 'US', 'us-east-1', 'north-america', 3],
  ['us-west-2', 'US West (Oregon)', 'Boardman', 'US', 'us-west-2', 'north-america', 3],
  ['eu-west-2', 'Europe (London)', 'London', 'GB', 'eu-west-2', 'europe', 3],
  ['eu-central-1', 'Europe (Frankfurt)', 'Frankfurt', 'DE', 'eu-central-1', 'europe', 3],
  ['ap-northeast-1', 'Asia Pacific (Tokyo)', 'Tokyo', 'JP', 'ap-northeast-1', 'asia-pacific', 3],
  ['af-south-1', 'Africa (Cape Town)', 'Cape Town', 'ZA', 'af-south-1', 'africa', 3],
];

const bmAll = BAREMETAL_REGIONS.map((r) => r[0]);
const BAREMETAL_PLANS: PlanRow[] = [
  ['c2-small-x86', 'c2.small.x86', 'bare-metal', 'core-optimized', 4, 'Intel Xeon E-2278G', 32, 480, 'ssd', 0, null, 38, bmAll],
  ['c3-medium-x86', 'c3.medium.x86', 'bare-metal', 'core-optimized', 24, 'AMD EPYC 7402P', 64, 960, 'nvme', 0, null, 150, bmAll],
  ['c3-large-arm', 'c3.large.arm64', 'bare-metal', 'core-optimized', 80, 'Ampere Altra Q80-30', 256, 960, 'nvme', 0, null, 250, ['NYC', 'DAL', 'AMS', 'FRA']],
  ['m3-large-x86', 'm3.large.x86', 'bare-metal', 'memory-optimized', 32, 'AMD EPYC 7502P', 256, 3840, 'nvme', 0, null, 310, ['NYC', 'DAL', 'LAX', 'AMS', 'FRA', 'LON', 'SIN', 'TYO']],
  ['m3-xlarge-x86', 'm3.xlarge.x86', 'bare-metal', 'memory-optimized', 64, 'AMD EPYC 7713P', 1024, 3840, 'nvme', 0, null, 720, ['NYC', 'DAL', 'AMS', 'FRA']],
  ['s3-xlarge-x86', 's3.xlarge.x86', 'bare-metal', 'storage-optimized', 24, 'Intel Xeon Silver 4214', 192, 96000, 'hdd', 0, null, 290, ['NYC', 'DAL', 'AMS', 'SAO']],
  ['g3-a100-x8', 'g3.a100.x8', 'bare-metal-gpu', 'core-optimized', 64, 'AMD EPYC 7763', 1024, 7680, 'nvme', 8, 'NVIDIA A100 80GB', 1980, ['NYC', 'DAL', 'FRA']],
  ['g3-l40s-x2', 'g3.l40s.x2', 'bare-metal-gpu', 'core-optimized', 32, 'AMD EPYC 9124', 384, 3840, 'nvme', 2, 'NVIDIA L40S', 420, ['NYC', 'AMS', 'SIN', 'LOS']],
];

const mcAll = MULTICLOUD_REGIONS.map((r) => r[0]);
const MULTICLOUD_PLANS: PlanRow[] = [
  ['mc-standard-2', 'Standard 2 vCPU', 'virtual-machine', 'core-optimized', 2, 'vCPU (shared)', 4, 80, 'ssd', 0, null, 3, mcAll],
  ['mc-standard-4', 'Standard 4 vCPU', 'virtual-machine', 'core-optimized', 4, 'vCPU (shared)', 8, 160, 'ssd', 0, null, 6, mcAll],
  ['mc-cpu-8', 'CPU-optimized 8 vCPU', 'virtual-machine', 'core-optimized', 8, 'vCPU (dedicated)', 16, 200, 'nvme', 0, null, 24, mcAll],
  ['mc-mem-8', 'Memory-optimized 8 vCPU', 'virtual-machine', 'memory-optimized', 8, 'vCPU (dedicated)', 64, 200, 'nvme', 0, null, 42, ['us-east', 'us-west', 'eu-west', 'eu-central']],
  ['mc-storage-8', 'Storage-optimized 8 vCPU', 'virtual-machine', 'storage-optimized', 8, 'vCPU (dedicated)', 64, 1900, 'nvme', 0, null, 55, ['us-east', 'eu-west']],
  ['mc-gpu-a10-1', 'GPU A10 x1', 'virtual-machine-gpu', 'core-optimized', 8, 'vCPU (dedicated)', 32, 250, 'nvme', 1, 'NVIDIA A10 24GB', 110, ['us-east', 'eu-west', 'ap-southeast']],
  ['mc-gpu-h100-1', 'GPU H100 x1', 'virtual-machine-gpu', 'core-optimized', 26, 'vCPU (dedicated)', 200, 1000, 'nvme', 1, 'NVIDIA H100 80GB', 349, ['us-east', 'us-west', 'eu-central']],
];

const pcAll = PUBLICCLOUD_REGIONS.map((r) => r[0]);
const PUBLICCLOUD_PLANS: PlanRow[] = [
  ['pc-t3-medium', 't3.medium', 'virtual-machine', 'core-optimized', 2, 'Intel Xeon Platinum (burstable)', 4, 30, 'ssd', 0, null, 4, pcAll],
  ['pc-c6i-xlarge', 'c6i.xlarge', 'virtual-machine', 'core-optimized', 4, 'Intel Xeon Platinum 8375C', 8, 50, 'ssd', 0, null, 17, pcAll],
  ['pc-r6i-2xlarge', 'r6i.2xlarge', 'virtual-machine', 'memory-optimized', 8, 'Intel Xeon Platinum 8375C', 64, 100, 'ssd', 0, null, 50, pcAll],
  ['pc-i4i-2xlarge', 'i4i.2xlarge', 'virtual-machine', 'storage-optimized', 8, 'Intel Xeon Platinum 8375C', 64, 1875, 'nvme', 0, null, 69, ['us-east-1', 'us-west-2', 'eu-central-1']],
  ['pc-g5-xlarge', 'g5.xlarge', 'virtual-machine-gpu', 'core-optimized', 4, 'AMD EPYC 7R32', 16, 250, 'nvme', 1, 'NVIDIA A10G 24GB', 101, ['us-east-1', 'us-west-2', 'eu-west-2', 'ap-northeast-1']],
  ['pc-p5-48xlarge', 'p5.48xlarge', 'virtual-machine-gpu', 'core-optimized', 192, 'AMD EPYC 7R13', 2048, 30400, 'nvme', 8, 'NVIDIA H100 80GB', 9832, ['us-east-1', 'us-west-2']],
];

function instanceTypes(plans: CatalogPlan[]): CatalogInstanceType[] {
  return plans.map((p) => ({
    id: catalogId('itype', p.slug),
    slug: p.slug,
    name: p.name,
    planSlug: p.slug,
    vcpus: p.cpuCores,
    memoryGb: p.memoryGb,
    diskGb: p.diskGb,
    gpuCount: p.gpuCount,
    gpuType: p.gpuType,
    hourlyCents: p.pricing.USD.hourlyCents,
  }));
}

function images(kind: ProviderKind, oses: CatalogOs[]): CatalogImage[] {
  const prefix = { provider_baremetal: 'bm', provider_multicloud: 'mc', provider_publiccloud: 'pc' }[kind];
  return oses.map((o) => ({
    id: catalogId('img', `${prefix}-${o.slug}`),
    slug: `${prefix}-${o.slug.replace(/_/g, '-')}`,
    name: o.name,
    osSlug: o.slug,
    version: o.version,
    family: o.family,
    minDiskGb: o.family === 'windows' ? 60 : 10,
  }));
}

/** Deterministic stock levels, so demos and tests see the same matrix every time. */
function availability(plans: CatalogPlan[], regions: CatalogRegion[]): AvailabilityEntry[] {
  const levels = ['high', 'high', 'medium', 'low'] as const;
  const out: AvailabilityEntry[] = [];
  for (const p of plans) {
    for (const r of regions) {
      const offered = p.regions.includes(r.slug);
      const h = createHash('sha256').update(`${p.slug}@${r.slug}`).digest()[0];
      out.push({ planSlug: p.slug, regionSlug: r.slug, available: offered, stockLevel: offered ? levels[h % levels.length] : 'unavailable' });
    }
  }
  return out;
}

function snapshot(kind: ProviderKind, regionRows: RegionRow[], planRows: PlanRow[], osSlugs: string[] | null): CatalogSnapshot {
  const regions = regionRows.map(region);
  const plans = planRows.map(plan);
  const operatingSystems = OPERATING_SYSTEMS.filter((o) => !osSlugs || osSlugs.includes(o[0])).map(os);
  return { kind, regions, plans, operatingSystems, instanceTypes: instanceTypes(plans), images: images(kind, operatingSystems), availability: availability(plans, regions) };
}

/** The simulator's offer per provider kind (what `SimulatorDriver.fetchCatalog()` returns). */
export const SEED_CATALOG: Record<ProviderKind, CatalogSnapshot> = {
  provider_baremetal: snapshot('provider_baremetal', BAREMETAL_REGIONS, BAREMETAL_PLANS, null),
  provider_multicloud: snapshot('provider_multicloud', MULTICLOUD_REGIONS, MULTICLOUD_PLANS, ['ubuntu_24_04_x64_lts', 'ubuntu_22_04_x64_lts', 'debian_12', 'rockylinux_9', 'windows_2022']),
  provider_publiccloud: snapshot('provider_publiccloud', PUBLICCLOUD_REGIONS, PUBLICCLOUD_PLANS, ['ubuntu_24_04_x64_lts', 'ubuntu_22_04_x64_lts', 'debian_12', 'almalinux_9', 'windows_2022']),
};
