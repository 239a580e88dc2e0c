import type { ProviderKind } from '../providers/events';

export type ServerCategory = 'bare-metal' | 'bare-metal-gpu' | 'virtual-machine' | 'virtual-machine-gpu';
export type ServerTier = 'core-optimized' | 'memory-optimized' | 'storage-optimized';
export type BillingPeriod = 'hourly' | 'monthly' | 'yearly';

/** Integer cents (kobo for NGN) per billing period. */
export interface Price { hourlyCents: number; monthlyCents: number; yearlyCents: number }

export interface CatalogRegion {
  id: string;
  slug: string;
  name: string;
  city: string;
  country: string;
  /** Provider site code (e.g. `NYC`, `us-east-1`); accepted wherever a region is. */
  site: string;
  macroregion: string;
  zones: string[];
}

export interface CatalogPlan {
  id: string;
  slug: string;
  name: string;
  category: ServerCategory;
  tier: ServerTier;
  cpuCores: number;
  cpuType: string;
  memoryGb: number;
  diskGb: number;
  diskType: 'nvme' | 'ssd' | 'hdd';
  gpuCount: number;
  gpuType: string | null;
  bandwidthTb: number;
  pricing: { USD: Price; NGN: Price };
  /** Region slugs where the plan can be deployed. */
  regions: string[];
}

export interface CatalogOs {
  id: string;
  slug: string;
  name: string;
  version: string;
  family: 'ubuntu' | 'debian' | 'rocky' | 'almalinux' | 'windows' | 'flatcar';
  categories: ServerCategory[];
}

export interface CatalogImage {
  id: string;
  slug: string;
  name: string;
  osSlug: string;
  version: string;
  family: CatalogOs['family'];
  minDiskGb: number;
}

export interface CatalogInstanceType {
  id: string;
  slug: string;
  name: string;
  planSlug: string;
  vcpus: number;
  memoryGb: number;
  diskGb: number;
  gpuCount: number;
  gpuType: string | null;
  hourlyCents: number;
}

export interface AvailabilityEntry {
  planSlug: string;
  regionSlug: string;
  available: boolean;
  stockLevel: 'high' | 'medium' | 'low' | 'unavailable';
}

/** What a driver's `fetchCatalog()` returns: the provider's whole offer at one moment. */
export interface CatalogSnapshot {
  kind: ProviderKind;
  regions: CatalogRegion[];
  plans: CatalogPlan[];
  operatingSystems: CatalogOs[];
  instanceTypes: CatalogInstanceType[];
  images: CatalogImage[];
  availability: AvailabilityEntry[];
}
