import { streamRecorder } from '../../test/support/fixtures';
import { logRecorder, projected } from '../../test/support/projector';
import { billingWalletsProjection } from './billing-wallets.projection';

const common = { projectId: 'p1', currency: 'USD', description: null, conversion: null };
const credited = (amountCents: number, balanceCents: number, creditedAt: string) => ({ creditId: `c${amountCents}`, amountCents, balanceCents, source: 'payment', reference: `pay-${amountCents}`, creditedAt });
const debited = (amountCents: number, balanceCents: number, debitedAt: string) => ({ debitId: `d${amountCents}`, amountCents, balanceCents, source: 'invoice', reference: `inv-${amountCents}`, debitedAt });

describe('billing wallets read model', () => {
  it('keeps the balance as credits minus debits, with their sums and counts, from the first movement on', async () => {
    const r = streamRecorder('wallet-p1-USD', common);
    const model = await projected(billingWalletsProjection);
    await model.handle(r('billing.WalletCredited.v1', credited(5000, 5000, '2026-01-01T00:00:00.000Z')), r('billing.WalletDebited.v1', debited(1200, 3800, '2026-01-02T00:00:00.000Z')), r('billing.WalletCredited.v1', credited(300, 4100, '2026-01-03T00:00:00.000Z')));
    expect(await model.get('p1:USD')).toEqual({
      id: 'p1:USD',
      _position: 3,
      projectId: 'p1',
      currency: 'USD',
      balanceCents: 4100,
      creditedCents: 5300,
      debitedCents: 1200,
      creditCount: 2,
      debitCount: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-03T00:00:00.000Z',
    });
  });

  it('opens a wallet from a debit too (a wallet whose first movement takes money out)', async () => {
    const r = streamRecorder('wallet-p1-USD', common);
    const model = await projected(billingWalletsProjection);
    await model.handle(r('billing.WalletDebited.v1', debited(700, -700, '2026-02-01T00:00:00.000Z')));
    expect(await model.get('p1:USD')).toMatchObject({ balanceCents: -700, creditedCents: 0, debitedCents: 700, creditCount: 0, debitCount: 1, createdAt: '2026-02-01T00:00:00.000Z' });
  });

  it('keeps one wallet per project and currency', async () => {
    const log = logRecorder();
    const usd = log.stream('wallet-p1-USD', common);
    const ngn = log.stream('wallet-p1-NGN', { ...common, currency: 'NGN' });
    const other = log.stream('wallet-p2-USD', { ...common, projectId: 'p2' });
    const model = await projected(billingWalletsProjection);
    await model.handle(usd('billing.WalletCredited.v1', credited(100, 100, '2026-01-01T00:00:00.000Z')), ngn('billing.WalletCredited.v1', credited(50000, 50000, '2026-01-01T00:00:00.000Z')), other('billing.WalletCredited.v1', credited(9, 9, '2026-01-01T00:00:00.000Z')));
    const { items } = await model.collection.find({ filter: { projectId: 'p1' }, sort: [{ field: 'currency', direction: 1 }] });
    expect(items.map((w) => [w.id, w.balanceCents])).toEqual([
      ['p1:NGN', 50000],
      ['p1:USD', 100],
    ]);
  });

  it('counts no movement twice when the log hands it again, in the same batch or after a restart', async () => {
    const r = streamRecorder('wallet-p1-USD', common);
    const events = [r('billing.WalletCredited.v1', credited(5000, 5000, '2026-01-01T00:00:00.000Z')), r('billing.WalletDebited.v1', debited(1200, 3800, '2026-01-02T00:00:00.000Z'))];
    const model = await projected(billingWalletsProjection);
    await model.handle(...events);
    const once = await model.get('p1:USD');
    expect(await model.handle(...events)).toBe(false);
    model.restart();
    expect(await model.handle(...events)).toBe(false);
    expect(await model.get('p1:USD')).toEqual(once);
    expect(once).toMatchObject({ balanceCents: 3800, creditCount: 1, debitCount: 1 });
  });
});
