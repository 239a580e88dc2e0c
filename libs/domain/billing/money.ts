import { DomainError } from '../shared/domain-error';

/** Wallet currencies (DECISIONS 9): money is integer cents per currency, never floats. */
export const CURRENCIES = ['USD', 'NGN'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** A rate is a positive decimal string (at most 12 fractional digits): exact, unlike a float. */
export const RATE_PATTERN = /^(0|[1-9]\d{0,11})(\.\d{1,12})?$/;

/** The table in force until an admin sets a pair (PUT /v1/admin/billing/rates/{from}/{to}). */
export const DEFAULT_RATES: Readonly<Record<Currency, Readonly<Record<Currency, string | null>>>> = {
  USD: { USD: null, NGN: '1500' },
  NGN: { USD: '0.000666666667', NGN: null },
};

function parseRate(rate: string): { units: bigint; scale: bigint } {
  if (!RATE_PATTERN.test(rate)) throw new DomainError('BAD_REQUEST', `Invalid rate ${rate}`);
  const [whole, fraction = ''] = rate.split('.');
  const units = BigInt(whole + fraction);
  if (units === 0n) throw new DomainError('BAD_REQUEST', 'A rate must be positive');
  return { units, scale: 10n ** BigInt(fraction.length) };
}

/** Normalises a rate (`1500.50` → `1500.5`); throws BAD_REQUEST when it is not a positive decimal. */
export function normaliseRate(rate: string): string {
  parseRate(rate);
  return rate.includes('.') ? rate.replace(/0+$/, '').replace(/\.$/, '') : rate;
}

/** amountCents × rate, rounded down to whole cents (DECISIONS 9), computed exactly with integers. */
export function convertCents(amountCents: number, rate: string): number {
  const { units, scale } = parseRate(rate);
  const converted = (BigInt(amountCents) * units) / scale; // BigInt division truncates: floor for positives
  if (converted > BigInt(Number.MAX_SAFE_INTEGER)) throw new DomainError('BAD_REQUEST', 'The converted amount is too large');
  return Number(converted);
}

/** A positive amount of cents that keeps every sum exact in a double. */
export function checkAmount(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new DomainError('BAD_REQUEST', 'amountCents must be a positive integer');
}
