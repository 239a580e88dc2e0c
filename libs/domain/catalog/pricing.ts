import { withMargin } from '../admin/settings';
import type { CatalogPlan } from './catalog.types';

/**
 * What a resource costs (DECISIONS 22): the one pricing function the creates record and
 * `POST /v1/cost-estimates` answers with. Plan prices come from the catalog as customers see it
 * (admin overrides and the margin already applied, `customerSnapshot`); storage, which the providers'
 * catalogs do not price, at the platform's rates below with the margin added here.
 */
export const HOURS_PER_MONTH = 730;
export const PRICE_CURRENCY = 'USD' as const;

/**
 * The platform's storage rates before the margin, in millicents (1/1000 cent) per hour: a volume's
 * gigabyte (14 ≈ 10.2 cents a GB-month) and a bucket (685 ≈ $5 a month).
 */
export const STORAGE_RATES_MILLICENTS = { volumeGbHour: 14, bucketHour: 685 } as const;

export const PRICED_RESOURCE_TYPES = ['instance', 'server', 'cluster', 'volume', 'database', 'bucket'] as const;
export type PricedResourceType = (typeof PRICED_RESOURCE_TYPES)[number];

/** Where a unit price comes from: a catalog plan's hourly price, or the platform's storage rate. */
export type PriceSource = 'catalog' | 'storage-rate';

type PlanPrice = Pick<CatalogPlan, 'pricing'>;
/** What a price is computed from: the plans a create resolved, or its size, and the margin in force. */
export type Priceable =
  | { resourceType: 'instance' | 'server' | 'database'; plan: PlanPrice }
  | { resourceType: 'cluster'; nodePools: ReadonlyArray<{ plan: PlanPrice; count: number }> }
  | { resourceType: 'volume'; sizeGb: number; marginPercent: number }
  | { resourceType: 'bucket'; marginPercent: number };

/** One line of a price: per unit per hour (cents, fractional for storage), and its totals in whole cents. */
export interface ResourcePrice {
  currency: typeof PRICE_CURRENCY;
  /** Cents per hour for one resource of this body. */
  unitPrice: number;
  quantity: number;
  hourlyCents: number;
  /** HOURS_PER_MONTH hours. */
  monthlyCents: number;
  priceSource: PriceSource;
}

/** n / 1000 rounded half away from zero (exact: both are integers). */
function millicentsToCents(n: number): number {
  const magnitude = Math.abs(n);
  const whole = Math.floor(magnitude / 1000);
  const cents = magnitude - whole * 1000 >= 500 ? whole + 1 : whole;
  return n < 0 ? -cents : cents;
}

const planHourly = (plan: PlanPrice): number => plan.pricing?.USD?.hourlyCents ?? 0;

/** Millicents per hour of one resource, and where the price comes from. */
function unitMillicents(p: Priceable): { millicents: number; priceSource: PriceSource } {
  switch (p.resourceType) {
    case 'instance':
    case 'server':
    case 'database':
      return { millicents: planHourly(p.plan) * 1000, priceSource: 'catalog' };
    case 'cluster':
      return { millicents: p.nodePools.reduce((sum, pool) => sum + planHourly(pool.plan) * pool.count, 0) * 1000, priceSource: 'catalog' };
    case 'volume':
      return { millicents: p.sizeGb * withMargin(STORAGE_RATES_MILLICENTS.volumeGbHour, p.marginPercent), priceSource: 'storage-rate' };
    case 'bucket':
      return { millicents: withMargin(STORAGE_RATES_MILLICENTS.bucketHour, p.marginPercent), priceSource: 'storage-rate' };
  }
}

/**
 * The price of `quantity` resources of one body: hourly and monthly (730 h) totals in integer cents,
 * each rounded half away from zero from the exact unit price, so a month is not 730 rounded hours.
 */
export function priceOf(p: Priceable, quantity = 1): ResourcePrice {
  const { millicents, priceSource } = unitMillicents(p);
  return {
    currency: PRICE_CURRENCY,
    unitPrice: millicents / 1000,
    quantity,
    hourlyCents: millicentsToCents(millicents * quantity),
    monthlyCents: millicentsToCents(millicents * quantity * HOURS_PER_MONTH),
    priceSource,
  };
}

/** The hourly price a compute create records (instances, servers, a server's migration): one unit's. */
export const hourlyPriceCents = (resourceType: 'instance' | 'server', plan: PlanPrice): number => priceOf({ resourceType, plan }).hourlyCents;
