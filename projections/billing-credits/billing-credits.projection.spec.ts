import type { Filter } from '../../libs/readstore/src/read-store.port';
import { walletStream } from '../../libs/domain/billing/events';
import type { Currency } from '../../libs/domain/billing/money';
import { planConversion, walletDecider, type WalletCommand } from '../../libs/domain/billing/wallet.decider';
import { logRecorder, projected } from '../../test/support/projector';
import { billingCreditsProjection } from './billing-credits.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const credit = (creditId: string, amountCents: number, m: number, more: Partial<WalletCommand> = {}): WalletCommand =>
  ({ type: 'CreditWallet', creditId, projectId: 'p1', currency: 'USD', amountCents, source: 'top-up', reference: `ref-${creditId}`, description: null, conversion: null, now: at(m), ...more }) as WalletCommand;
const debit = (debitId: string, amountCents: number, m: number): WalletCommand =>
  ({ type: 'DebitWallet', debitId, projectId: 'p1', currency: 'USD', amountCents, source: 'debit', reference: `ref-${debitId}`, description: null, conversion: null, now: at(m) }) as WalletCommand;

describe('billing credits read model: one document per wallet credit', () => {
  it('records a credit with its source, reference and amount, and nothing for a debit', async () => {
    const log = logRecorder();
    const usd = log.decided(walletStream('p1', 'USD'), walletDecider);
    const model = await projected(billingCreditsProjection);
    await model.handle(...usd(credit('c1', 5_000, 0, { source: 'promo', description: 'Welcome' })), ...usd(debit('d1', 1_200, 1)), ...usd(credit('c2', 700, 2)));
    expect(await model.get('c1')).toEqual({ id: 'c1', _position: 1, projectId: 'p1', currency: 'USD', amountCents: 5_000, source: 'promo', reference: 'ref-c1', description: 'Welcome', conversion: null, createdAt: at(0) });
    // The balance after the credit is the wallet's, not a credit's: not kept.
    expect(await model.get('c2')).toEqual({ id: 'c2', _position: 3, projectId: 'p1', currency: 'USD', amountCents: 700, source: 'top-up', reference: 'ref-c2', description: null, conversion: null, createdAt: at(2) });
    expect((await model.all()).map((d) => d.id)).toEqual(['c1', 'c2']);
  });

  it('keeps the conversion a conversion credit records (rate and both amounts)', async () => {
    const log = logRecorder();
    const ngn = log.decided(walletStream('p1', 'NGN'), walletDecider);
    const conversion = planConversion('cv1', 'USD', 'NGN', 1_000, '1500.5');
    const model = await projected(billingCreditsProjection);
    await model.handle(...ngn(credit('c-cv1', conversion.toAmountCents, 0, { currency: 'NGN' as Currency, source: 'conversion', reference: 'cv1', conversion })));
    expect(await model.get('c-cv1')).toMatchObject({ currency: 'NGN', source: 'conversion', amountCents: 1_500_500, conversion: { conversionId: 'cv1', fromCurrency: 'USD', toCurrency: 'NGN', fromAmountCents: 1_000, toAmountCents: 1_500_500, rate: '1500.5' } });
  });

  it('lists a project\'s credits newest first, by currency and source, and records each credit once however often the log hands it', async () => {
    const log = logRecorder();
    const usd = log.decided(walletStream('p1', 'USD'), walletDecider);
    const ngn = log.decided(walletStream('p1', 'NGN'), walletDecider);
    const other = log.decided(walletStream('p2', 'USD'), walletDecider);
    const events = [...usd(credit('a', 100, 0)), ...ngn(credit('b', 200, 1, { currency: 'NGN' as Currency })), ...other(credit('x', 300, 2, { projectId: 'p2' })), ...usd(credit('c', 400, 3, { source: 'refund' }))];
    const model = await projected(billingCreditsProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(...events.reverse());
    expect(await model.all()).toEqual(once);
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: -1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1' })).toEqual(['c', 'b', 'a']);
    expect(await ids({ projectId: 'p1', currency: 'USD' })).toEqual(['c', 'a']);
    expect(await ids({ projectId: 'p1', source: 'refund' })).toEqual(['c']);
  });
});
