import { randomUUID } from 'node:crypto';
import { walletStream } from '../../libs/domain/billing/events';
import { checkoutPromoReference } from '../../libs/domain/billing/payments';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { paymentCredits } from './payment-credits';

/** The credits of settled payments and completed checkouts, against a real (embedded) event store. */
describe('payment credits process manager', () => {
  let store: SqlEventStore;
  const at = '2026-03-01T10:00:00.000Z';
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  const record = (stream: string, type: string, data: Record<string, unknown>) => store.append(stream, [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1, projectId: data.projectId as string, actor: 'test' } }], { expectedRevision: 'any' });
  const logSince = async (from: number) => store.readAll({ fromPosition: from, maxCount: 1000 });
  const credits = async (projectId: string, currency: string) => (await store.readStream(walletStream(projectId, currency as 'USD'))).filter((e) => e.type === 'billing.WalletCredited.v1').map((e) => e.data);

  it('credits a settled payment once, however often the event is handed to it', async () => {
    const from = await store.headPosition();
    await record('payment-pay1', 'billing.PaymentSettled.v1', { reference: 'pay1', projectId: 'p1', provider: 'stripe', amountCents: 2500, currency: 'USD', via: 'webhook', providerEventId: 'evt_1', settledAt: at });
    const log = await logSince(from);
    const pm = paymentCredits(store);
    expect(await pm.handle(log)).toBe(true);
    expect(await pm.handle(log)).toBe(false); // a replay (the checkpoint was not saved): nothing twice
    expect(await credits('p1', 'USD')).toEqual([expect.objectContaining({ amountCents: 2500, source: 'payment', reference: 'pay1', description: 'stripe payment pay1', creditedAt: at })]);
  });

  it('credits a completed checkout, and its promo as a credit of its own in the promo currency', async () => {
    const from = await store.headPosition();
    const completed = { checkoutId: 'co1', projectId: 'p2', provider: 'stripe', setupIntentId: 'si_1', paymentMethodId: 'pm_1', amountCents: 1000, currency: 'USD', completedAt: at };
    await record('checkout-co1', 'billing.CheckoutCompleted.v1', { ...completed, promo: { code: 'WELCOME', amountCents: 300000, currency: 'NGN' } });
    await record('checkout-co2', 'billing.CheckoutCompleted.v1', { ...completed, checkoutId: 'co2', amountCents: 700, promo: null });
    const log = await logSince(from);
    const pm = paymentCredits(store);
    expect(await pm.handle(log)).toBe(true);
    expect(await pm.handle(log)).toBe(false);
    expect(await credits('p2', 'USD')).toEqual([
      expect.objectContaining({ amountCents: 1000, source: 'checkout', reference: 'co1', description: 'Checkout co1' }),
      expect.objectContaining({ amountCents: 700, source: 'checkout', reference: 'co2' }),
    ]);
    expect(await credits('p2', 'NGN')).toEqual([expect.objectContaining({ amountCents: 300000, source: 'promo', reference: checkoutPromoReference('co1'), description: 'Promo code WELCOME' })]);
  });

  it('ignores every other event', async () => {
    const from = await store.headPosition();
    await record('payment-pay3', 'billing.PaymentFailed.v1', { reference: 'pay3', projectId: 'p3', provider: 'paystack', reason: 'declined', via: 'verify', failedAt: at });
    expect(await paymentCredits(store).handle(await logSince(from))).toBe(false);
    expect(await credits('p3', 'USD')).toEqual([]);
  });
});
