import { streamRecorder } from '../../test/support/fixtures';
import { revenueProjection, type RevenueDoc } from './revenue.projection';

describe('revenue by currency and month', () => {
  const record = streamRecorder('wallet-p1-USD', { projectId: 'p1', currency: 'USD', reference: 'r', description: null, conversion: null });
  const fold = (events: ReturnType<typeof record>[]) => {
    const docs = new Map<string, RevenueDoc>();
    for (const e of events) {
      const id = revenueProjection.documentId(e);
      if (id) docs.set(id, revenueProjection.evolve(docs.get(id) ?? null, e)!);
    }
    return [...docs.values()].map(({ id, currency, month, amountCents, payments }) => ({ id, currency, month, amountCents, payments }));
  };

  it('sums payment and checkout credits per currency and UTC month, ignoring top-ups, promos and conversions', () => {
    const credit = (source: string, amountCents: number, creditedAt: string) => record('billing.WalletCredited.v1', { creditId: `c${amountCents}`, source, amountCents, creditedAt });
    expect(
      fold([credit('payment', 1500, '2026-10-31T23:59:59.000Z'), credit('checkout', 500, '2026-10-01T00:00:00.000Z'), credit('payment', 700, '2026-11-01T00:00:00.000Z'), credit('top-up', 9000, '2026-11-02T00:00:00.000Z'), credit('promo', 1000, '2026-11-02T00:00:00.000Z'), credit('conversion', 300, '2026-11-03T00:00:00.000Z')]),
    ).toEqual([
      { id: 'USD:2026-10', currency: 'USD', month: '2026-10', amountCents: 2000, payments: 2 },
      { id: 'USD:2026-11', currency: 'USD', month: '2026-11', amountCents: 700, payments: 1 },
    ]);
  });
});
