import { checkoutDecider, paymentDecider, type CheckoutCommand, type CheckoutEvent, type CheckoutState, type PaymentCommand, type PaymentEvent, type PaymentState } from './payments';

const at = '2026-01-01T00:00:00.000Z';
function fold<C, E, S>(d: { initialState: () => S; decide: (c: C, s: S) => E[]; evolve: (s: S, e: E) => S }, commands: C[]): { state: S; events: E[] } {
  let state = d.initialState();
  const events: E[] = [];
  for (const c of commands) for (const e of d.decide(c, state)) (events.push(e), (state = d.evolve(state, e)));
  return { state, events };
}
const init: PaymentCommand = { type: 'InitializePayment', reference: 'pay_1', projectId: 'p1', provider: 'paystack', driver: 'simulator', amountCents: 500, currency: 'NGN', providerPaymentId: 'pay_1', authorizationUrl: 'https://x', initializedAt: at };
const settle = (paid: number | null = null): PaymentCommand => ({ type: 'SettlePayment', via: 'verify', providerEventId: null, paidAmountCents: paid, paidCurrency: null, now: at });

describe('payment decider', () => {
  it('settles once, however many verifies and webhooks follow', () => {
    const { state, events } = fold<PaymentCommand, PaymentEvent, PaymentState>(paymentDecider, [init, settle(), settle(), { type: 'FailPayment', via: 'webhook', reason: 'late', now: at }]);
    expect(events.map((e) => e.type)).toEqual(['billing.PaymentInitialized.v1', 'billing.PaymentSettled.v1']);
    expect(state.status).toBe('succeeded');
  });
  it('fails a payment whose provider reports another amount', () => {
    const { events } = fold<PaymentCommand, PaymentEvent, PaymentState>(paymentDecider, [init, settle(499)]);
    expect(events.at(-1)!.type).toBe('billing.PaymentFailed.v1');
  });
});

describe('checkout decider', () => {
  const start: CheckoutCommand = { type: 'StartCheckout', checkoutId: 'c1', projectId: 'p1', provider: 'stripe', driver: 'simulator', setupIntentId: 'seti_1', amountCents: 5000, currency: 'USD', startedAt: at };
  const complete: CheckoutCommand = { type: 'CompleteCheckout', projectId: 'p1', setupIntentId: 'seti_1', paymentMethodId: 'pm', confirmed: true, providerStatus: 'succeeded', now: at };
  it('completes once with the promo applied before, and takes no other promo after', () => {
    const promo = { code: 'WELCOME10', amountCents: 1000, currency: 'USD' as const };
    const { state, events } = fold<CheckoutCommand, CheckoutEvent, CheckoutState>(checkoutDecider, [start, { type: 'ApplyCheckoutPromo', projectId: 'p1', promo, now: at }, complete, complete]);
    expect(events.map((e) => e.type)).toEqual(['billing.CheckoutStarted.v1', 'billing.CheckoutPromoApplied.v1', 'billing.CheckoutCompleted.v1']);
    expect(events[2].data).toMatchObject({ amountCents: 5000, promo });
    expect(() => checkoutDecider.decide({ type: 'ApplyCheckoutPromo', projectId: 'p1', promo: { ...promo, code: 'OTHER' }, now: at }, state)).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    expect(() => checkoutDecider.decide({ ...complete, projectId: 'p2' } as CheckoutCommand, state)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});
