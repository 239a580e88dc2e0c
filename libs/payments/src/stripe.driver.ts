import Stripe from 'stripe';
import { PaymentProviderError, type PaymentOutcome, type PaymentProvider } from './payment-provider.port';

export interface StripeSettings {
  secretKey: string;
  /** STRIPE_API_URL: another base URL (stripe-mock in tests); Stripe's own when absent. */
  apiUrl?: string;
}

/** Stripe client options from the settings: host, port and protocol of STRIPE_API_URL. */
export function stripeClient(settings: StripeSettings): Stripe {
  const options: Stripe.StripeConfig = { maxNetworkRetries: 1, timeout: 10_000, telemetry: false };
  if (settings.apiUrl) {
    const url = new URL(settings.apiUrl);
    options.protocol = url.protocol === 'http:' ? 'http' : 'https';
    options.host = url.hostname;
    options.port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  }
  return new Stripe(settings.secretKey, options);
}

async function call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // Stripe's error carries its type and message, never the key.
    const message = err instanceof Error ? err.message : String(err);
    throw new PaymentProviderError('stripe', `${operation} failed: ${message}`, { cause: err });
  }
}

/**
 * Stripe through the official SDK. Top-ups are Checkout Sessions (their `url` is the authorization
 * URL, `client_reference_id` our reference); saved cards are SetupIntents. Every create carries an
 * idempotency key derived from our reference, so a retried request creates nothing twice at Stripe.
 */
export class StripePaymentDriver implements PaymentProvider {
  readonly name = 'stripe' as const;
  readonly driver = 'stripe';
  private readonly stripe: Stripe;

  constructor(settings: StripeSettings) {
    this.stripe = stripeClient(settings);
  }

  async createSetupIntent({ reference, projectId }: { reference: string; projectId: string }) {
    const intent = await call('setup intent', () =>
      this.stripe.setupIntents.create({ usage: 'off_session', metadata: { reference, projectId } }, { idempotencyKey: `setup-${reference}` }),
    );
    return { id: intent.id, clientSecret: intent.client_secret ?? '', status: intent.status };
  }

  async confirmSetupIntent({ setupIntentId, paymentMethodId }: { setupIntentId: string; paymentMethodId: string }) {
    const intent = await call('setup intent confirmation', () => this.stripe.setupIntents.confirm(setupIntentId, { payment_method: paymentMethodId }));
    return { status: intent.status };
  }

  async initializePayment(input: { reference: string; projectId: string; amountCents: number; currency: string; email: string; returnUrl: string }) {
    const session = await call('checkout session', () =>
      this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          client_reference_id: input.reference,
          customer_email: input.email,
          success_url: input.returnUrl,
          line_items: [{ quantity: 1, price_data: { currency: input.currency.toLowerCase(), unit_amount: input.amountCents, product_data: { name: 'Wallet top-up' } } }],
          metadata: { reference: input.reference, projectId: input.projectId },
        },
        { idempotencyKey: `init-${input.reference}` },
      ),
    );
    if (!session.url) throw new PaymentProviderError('stripe', 'checkout session without a url');
    return { providerPaymentId: session.id, authorizationUrl: session.url };
  }

  async verifyPayment({ providerPaymentId }: { reference: string; providerPaymentId: string }): Promise<PaymentOutcome> {
    const session = await call('checkout session retrieval', () => this.stripe.checkout.sessions.retrieve(providerPaymentId));
    const status = session.payment_status === 'paid' || session.payment_status === 'no_payment_required' ? 'succeeded' : session.status === 'expired' ? 'failed' : 'pending';
    return { status, amountCents: session.amount_total ?? null, currency: session.currency ? session.currency.toUpperCase() : null };
  }
}
