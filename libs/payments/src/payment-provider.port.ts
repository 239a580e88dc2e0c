/**
 * The payment-provider port (DECISIONS 13 and 16). Drivers: Stripe (the official SDK), Paystack (its
 * HTTP API) and a simulator (the embedded default, and whichever provider has no credentials).
 * Amounts are integer minor units (cents, kobo); currencies ISO codes in upper case.
 */
export const PAYMENT_PROVIDERS = ['stripe', 'paystack'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

export interface SetupIntentResult {
  id: string;
  /** Handed to the client once (the browser confirms with it); never recorded in events or logs. */
  clientSecret: string;
  status: string;
}

export interface PaymentInitResult {
  /** The provider's id of the payment (Stripe Checkout Session, Paystack reference). */
  providerPaymentId: string;
  /** Where the customer authorizes the payment. */
  authorizationUrl: string;
}

export type PaymentStatus = 'succeeded' | 'pending' | 'failed';

export interface PaymentOutcome {
  status: PaymentStatus;
  /** What the provider says was paid (null when it does not say): a settlement checks it against the payment. */
  amountCents: number | null;
  currency: string | null;
}

export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** `stripe`, `paystack` or `simulator`: the driver behind the name. */
  readonly driver: string;
  createSetupIntent(input: { reference: string; projectId: string }): Promise<SetupIntentResult>;
  /** Attaches the payment method and confirms: `succeeded`, or another provider status. */
  confirmSetupIntent(input: { setupIntentId: string; paymentMethodId: string }): Promise<{ status: string }>;
  initializePayment(input: { reference: string; projectId: string; amountCents: number; currency: string; email: string; returnUrl: string }): Promise<PaymentInitResult>;
  verifyPayment(input: { reference: string; providerPaymentId: string }): Promise<PaymentOutcome>;
}

/** The provider answered with an error or could not be reached: the request is answered 503 UNAVAILABLE. */
export class PaymentProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.name = 'PaymentProviderError';
  }
}

/** A provider that does not offer the operation (Paystack has no setup intents). */
export class UnsupportedPaymentOperation extends Error {
  constructor(
    readonly provider: string,
    readonly operation: string,
  ) {
    super(`${provider} does not support ${operation}`);
    this.name = 'UnsupportedPaymentOperation';
  }
}
