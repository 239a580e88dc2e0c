import type { AppConfig } from '../../config/src/config';
import { PaystackPaymentDriver } from './paystack.driver';
import type { PaymentProvider, PaymentProviderName } from './payment-provider.port';
import { SimulatedPaymentDriver } from './simulator.driver';
import { StripePaymentDriver } from './stripe.driver';

/** Each provider's driver: the real one where its credentials are configured, else the simulator. */
export function paymentProviders(payments: AppConfig['payments']): Record<PaymentProviderName, PaymentProvider> {
  return {
    stripe: payments.stripe ? new StripePaymentDriver(payments.stripe) : new SimulatedPaymentDriver('stripe'),
    paystack: payments.paystack ? new PaystackPaymentDriver(payments.paystack) : new SimulatedPaymentDriver('paystack'),
  };
}
