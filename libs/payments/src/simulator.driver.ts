import { createHash } from 'node:crypto';
import type { PaymentOutcome, PaymentProvider, PaymentProviderName } from './payment-provider.port';

/** The payment method the simulator declines (as Stripe's test card `pm_card_chargeDeclined`). */
export const SIMULATOR_DECLINED_METHOD = 'pm_card_chargeDeclined';

/**
 * A deterministic stand-in for a provider (the embedded default, and DECISIONS 21's test mode): no
 * network, ids derived from our reference, every payment paid once verified, every setup intent
 * confirmed unless the declined test method is used.
 */
export class SimulatedPaymentDriver implements PaymentProvider {
  readonly driver = 'simulator';

  constructor(
    readonly name: PaymentProviderName,
    private readonly baseUrl = 'https://payments.simulator.invalid',
  ) {}

  async createSetupIntent({ reference }: { reference: string; projectId: string }) {
    const id = `seti_sim_${reference}`;
    return { id, clientSecret: `${id}_secret_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`, status: 'requires_payment_method' };
  }

  async confirmSetupIntent({ paymentMethodId }: { setupIntentId: string; paymentMethodId: string }) {
    return { status: paymentMethodId === SIMULATOR_DECLINED_METHOD ? 'requires_payment_method' : 'succeeded' };
  }

  async initializePayment({ reference }: { reference: string; amountCents: number; currency: string }) {
    return { providerPaymentId: `sim_${reference}`, authorizationUrl: `${this.baseUrl}/${this.name}/authorize/${encodeURIComponent(reference)}` };
  }

  async verifyPayment(): Promise<PaymentOutcome> {
    return { status: 'succeeded', amountCents: null, currency: null };
  }
}
