import { HOURS_PER_MONTH, priceOf } from './pricing';

const plan = (hourlyCents: number) => ({ pricing: { USD: { hourlyCents, monthlyCents: 0, yearlyCents: 0 }, NGN: { hourlyCents: 0, monthlyCents: 0, yearlyCents: 0 } } });

describe('priceOf (DECISIONS 22)', () => {
  it('prices a plan per hour and a month as 730 of its hours, times the quantity', () => {
    expect(priceOf({ resourceType: 'instance', plan: plan(17) }, 3)).toEqual({ currency: 'USD', unitPrice: 17, quantity: 3, hourlyCents: 51, monthlyCents: 51 * HOURS_PER_MONTH, priceSource: 'catalog' });
  });

  it("sums a cluster's node pools", () => {
    expect(priceOf({ resourceType: 'cluster', nodePools: [{ plan: plan(4), count: 3 }, { plan: plan(17), count: 2 }] })).toMatchObject({ unitPrice: 46, hourlyCents: 46, monthlyCents: 46 * 730 });
  });

  it('rounds storage half away from zero per item, from the exact unit price (a month is not 730 rounded hours)', () => {
    // 75 GB × 14 millicents = 1.05 cents an hour → 1; × 730 = 766.5 → 767.
    expect(priceOf({ resourceType: 'volume', sizeGb: 75, marginPercent: 0 })).toEqual({ currency: 'USD', unitPrice: 1.05, quantity: 1, hourlyCents: 1, monthlyCents: 767, priceSource: 'storage-rate' });
    // 0.685 an hour → 1; two: 1.37 → 1; a month of two: 1000.1 → 1000.
    expect(priceOf({ resourceType: 'bucket', marginPercent: 0 }, 2)).toMatchObject({ unitPrice: 0.685, hourlyCents: 1, monthlyCents: 1000 });
  });

  it('adds the margin to the storage rate (plans carry it from the customer catalog)', () => {
    // 14 × 1.5 = 21 millicents per GB-hour.
    expect(priceOf({ resourceType: 'volume', sizeGb: 100, marginPercent: 50 })).toMatchObject({ unitPrice: 2.1, hourlyCents: 2, monthlyCents: 1533 });
  });
});
