/**
 * `round(amountCents × taxRate)`, half away from zero (DECISIONS 9), computed exactly: the rate is
 * taken as the decimal the client wrote (its shortest round-trip form, e.g. 0.075), so 10 × 0.05 is
 * 0.5 and rounds to 1 even though the binary product is 0.5000000000000001 or 0.49999… for others.
 */
export function taxCentsOf(amountCents: number, taxRate: number): number {
  if (!Number.isSafeInteger(amountCents)) throw new RangeError('amountCents must be a safe integer');
  if (!Number.isFinite(taxRate) || taxRate < 0) throw new RangeError('taxRate must be a finite number >= 0');
  const { digits, scale } = decimalOf(taxRate);
  const product = BigInt(amountCents) * digits;
  const divisor = 10n ** BigInt(scale);
  const negative = product < 0n;
  const magnitude = negative ? -product : product;
  let quotient = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) quotient += 1n; // half away from zero
  return Number(negative ? -quotient : quotient);
}

/** A non-negative finite number as an exact decimal `digits × 10^-scale` of its shortest form. */
function decimalOf(x: number): { digits: bigint; scale: number } {
  const [mantissa, exp = '0'] = String(x).toLowerCase().split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  const digits = BigInt(whole + fraction);
  const scale = fraction.length - Number(exp);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** The sum of the line items' `quantity × unitPriceCents`. */
export const lineItemsTotal = (items: readonly { quantity: number; unitPriceCents: number }[]): number => items.reduce((sum, i) => sum + i.quantity * i.unitPriceCents, 0);
