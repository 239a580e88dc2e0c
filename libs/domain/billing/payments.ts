import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';
import { checkAmount, type Currency } from './money';

/*
 * Payments, checkout sessions and promo codes (DECISIONS 16). Each settles at most once: the stream's
 * expected revision decides between concurrent settlements, a settled stream decides nothing more, and
 * the wallet credit that follows (a process manager) carries the payment or checkout as its reference.
 */

export type PaymentProviderName = 'stripe' | 'paystack';

export type PaymentInitialized = DomainEvent<
  'billing.PaymentInitialized.v1',
  { reference: string; projectId: string; provider: PaymentProviderName; driver: string; amountCents: number; currency: Currency; providerPaymentId: string; authorizationUrl: string; initializedAt: string }
>;
/** `via`: a verify call or a provider's webhook (its event id then). The wallet credit follows from this event. */
export type PaymentSettled = DomainEvent<
  'billing.PaymentSettled.v1',
  { reference: string; projectId: string; provider: PaymentProviderName; amountCents: number; currency: Currency; via: 'verify' | 'webhook'; providerEventId: string | null; settledAt: string }
>;
export type PaymentFailed = DomainEvent<'billing.PaymentFailed.v1', { reference: string; projectId: string; provider: PaymentProviderName; reason: string; via: 'verify' | 'webhook'; failedAt: string }>;
export type PaymentEvent = PaymentInitialized | PaymentSettled | PaymentFailed;

export type PaymentStatus = 'pending' | 'succeeded' | 'failed';
export interface PaymentState {
  payment: PaymentInitialized['data'] | null;
  status: PaymentStatus;
}
export type PaymentCommand =
  | ({ type: 'InitializePayment' } & PaymentInitialized['data'])
  | { type: 'SettlePayment'; via: 'verify' | 'webhook'; providerEventId: string | null; paidAmountCents: number | null; paidCurrency: string | null; now: string }
  | { type: 'FailPayment'; via: 'verify' | 'webhook'; reason: string; now: string };

export const paymentDecider: Decider<PaymentCommand, PaymentEvent, PaymentState> = {
  initialState: () => ({ payment: null, status: 'pending' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'billing.PaymentInitialized.v1':
        return { payment: event.data, status: 'pending' };
      case 'billing.PaymentSettled.v1':
        return { ...state, status: 'succeeded' };
      case 'billing.PaymentFailed.v1':
        return { ...state, status: 'failed' };
    }
  },
  decide: (command, state) => {
    if (command.type === 'InitializePayment') {
      if (state.payment) throw new DomainError('CONFLICT', `Payment ${command.reference} exists`);
      checkAmount(command.amountCents);
      const { type: _t, ...data } = command;
      return [{ type: 'billing.PaymentInitialized.v1', data }];
    }
    const p = state.payment;
    if (!p) throw new DomainError('NOT_FOUND', 'Payment not found');
    if (state.status !== 'pending') return []; // settled (or failed) once: later verifies and webhooks change nothing
    if (command.type === 'FailPayment') return [{ type: 'billing.PaymentFailed.v1', data: { reference: p.reference, projectId: p.projectId, provider: p.provider, reason: command.reason, via: command.via, failedAt: command.now } }];
    // A provider that reports what was paid must report this payment's amount and currency.
    if ((command.paidAmountCents !== null && command.paidAmountCents !== p.amountCents) || (command.paidCurrency !== null && command.paidCurrency.toUpperCase() !== p.currency)) {
      const reason = `provider reported ${command.paidAmountCents ?? '?'} ${command.paidCurrency ?? '?'} for ${p.amountCents} ${p.currency}`;
      return [{ type: 'billing.PaymentFailed.v1', data: { reference: p.reference, projectId: p.projectId, provider: p.provider, reason, via: command.via, failedAt: command.now } }];
    }
    return [{ type: 'billing.PaymentSettled.v1', data: { reference: p.reference, projectId: p.projectId, provider: p.provider, amountCents: p.amountCents, currency: p.currency, via: command.via, providerEventId: command.providerEventId, settledAt: command.now } }];
  },
};

// ---------------------------------------------------------------- promo codes (admin-managed)

export type PromoCodeSet = DomainEvent<'billing.PromoCodeSet.v1', { code: string; amountCents: number; currency: Currency; active: boolean; description: string | null; setBy: string; setAt: string }>;
export const PROMO_CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{1,63}$/;
export type SetPromoCode = { type: 'SetPromoCode' } & Omit<PromoCodeSet['data'], 'setAt'> & { now: string };

export const promoCodeDecider: Decider<SetPromoCode, PromoCodeSet, { promo: PromoCodeSet['data'] | null }> = {
  initialState: () => ({ promo: null }),
  evolve: (_s, e) => ({ promo: e.data }),
  decide: (c) => {
    if (!PROMO_CODE_PATTERN.test(c.code)) throw new DomainError('BAD_REQUEST', 'A promo code is 2 to 64 upper-case letters, digits, _ or -');
    checkAmount(c.amountCents);
    const { type: _t, now, ...data } = c;
    return [{ type: 'billing.PromoCodeSet.v1', data: { ...data, setAt: now } }];
  },
};

// ---------------------------------------------------------------- checkout sessions

export interface AppliedPromo {
  code: string;
  amountCents: number;
  currency: Currency;
}
export type CheckoutStarted = DomainEvent<
  'billing.CheckoutStarted.v1',
  { checkoutId: string; projectId: string; provider: PaymentProviderName; driver: string; setupIntentId: string; amountCents: number; currency: Currency; startedAt: string }
>;
export type CheckoutPromoApplied = DomainEvent<'billing.CheckoutPromoApplied.v1', { checkoutId: string; projectId: string; promo: AppliedPromo; appliedAt: string }>;
/** The wallet is credited from this event (amount: reference the checkout; promo: its own reference). */
export type CheckoutCompleted = DomainEvent<
  'billing.CheckoutCompleted.v1',
  { checkoutId: string; projectId: string; provider: PaymentProviderName; setupIntentId: string; paymentMethodId: string; amountCents: number; currency: Currency; promo: AppliedPromo | null; completedAt: string }
>;
export type CheckoutFailed = DomainEvent<'billing.CheckoutFailed.v1', { checkoutId: string; projectId: string; reason: string; failedAt: string }>;
export type CheckoutEvent = CheckoutStarted | CheckoutPromoApplied | CheckoutCompleted | CheckoutFailed;

export type CheckoutStatus = 'requires_payment_method' | 'succeeded' | 'failed';
export interface CheckoutState {
  checkout: CheckoutStarted['data'] | null;
  promo: AppliedPromo | null;
  status: CheckoutStatus;
}
export type CheckoutCommand =
  | ({ type: 'StartCheckout' } & CheckoutStarted['data'])
  | { type: 'ApplyCheckoutPromo'; projectId: string; promo: AppliedPromo; now: string }
  | { type: 'CompleteCheckout'; projectId: string; setupIntentId: string; paymentMethodId: string; confirmed: boolean; providerStatus: string; now: string };

export const checkoutPromoReference = (checkoutId: string) => `checkout:${checkoutId}:promo`;

export const checkoutDecider: Decider<CheckoutCommand, CheckoutEvent, CheckoutState> = {
  initialState: () => ({ checkout: null, promo: null, status: 'requires_payment_method' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'billing.CheckoutStarted.v1':
        return { ...state, checkout: event.data };
      case 'billing.CheckoutPromoApplied.v1':
        return { ...state, promo: event.data.promo };
      case 'billing.CheckoutCompleted.v1':
        return { ...state, status: 'succeeded' };
      case 'billing.CheckoutFailed.v1':
        return { ...state, status: 'failed' };
    }
  },
  decide: (command, state) => {
    if (command.type === 'StartCheckout') {
      checkAmount(command.amountCents);
      const { type: _t, ...data } = command;
      return [{ type: 'billing.CheckoutStarted.v1', data }];
    }
    const c = state.checkout;
    if (!c || c.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Checkout session not found');
    if (command.type === 'ApplyCheckoutPromo') {
      if (state.promo?.code === command.promo.code) return [];
      if (state.status !== 'requires_payment_method') throw new DomainError('INVALID_STATE', `Checkout session is ${state.status}; a promo code applies before completion`);
      if (state.promo) throw new DomainError('INVALID_STATE', `Checkout session already has promo code ${state.promo.code}`);
      return [{ type: 'billing.CheckoutPromoApplied.v1', data: { checkoutId: c.checkoutId, projectId: c.projectId, promo: command.promo, appliedAt: command.now } }];
    }
    if (command.setupIntentId !== c.setupIntentId) throw new DomainError('BAD_REQUEST', 'setupIntentId is not this checkout session\'s setup intent');
    if (state.status === 'succeeded') return []; // completed once: the wallet was credited once
    if (!command.confirmed) return [{ type: 'billing.CheckoutFailed.v1', data: { checkoutId: c.checkoutId, projectId: c.projectId, reason: `setup intent ${command.providerStatus}`, failedAt: command.now } }];
    return [
      {
        type: 'billing.CheckoutCompleted.v1',
        data: { checkoutId: c.checkoutId, projectId: c.projectId, provider: c.provider, setupIntentId: c.setupIntentId, paymentMethodId: command.paymentMethodId, amountCents: c.amountCents, currency: c.currency, promo: state.promo, completedAt: command.now },
      },
    ];
  },
};

export const PaymentEventTypes = {
  PaymentInitialized: 'billing.PaymentInitialized.v1',
  PaymentSettled: 'billing.PaymentSettled.v1',
  PaymentFailed: 'billing.PaymentFailed.v1',
  PromoCodeSet: 'billing.PromoCodeSet.v1',
  CheckoutStarted: 'billing.CheckoutStarted.v1',
  CheckoutPromoApplied: 'billing.CheckoutPromoApplied.v1',
  CheckoutCompleted: 'billing.CheckoutCompleted.v1',
  CheckoutFailed: 'billing.CheckoutFailed.v1',
} as const;

export const paymentStream = (reference: string) => `payment-${reference}`;
export const checkoutStream = (checkoutId: string) => `checkout-${checkoutId}`;
export const promoStream = (code: string) => `promo-${code}`;
