import { requireEngine } from '../../../test/engines';
import { startPaystackTwin, type PaystackTwin } from '../../../test/support/paystack-twin';
import { PaymentProviderError, UnsupportedPaymentOperation } from './payment-provider.port';
import { PaystackPaymentDriver } from './paystack.driver';
import { SimulatedPaymentDriver } from './simulator.driver';
import { StripePaymentDriver } from './stripe.driver';

const order = { projectId: 'p1', email: 'payer@example.com', returnUrl: 'https://api.example.com/v1/payments/verify' };

/** The Stripe driver against a real stripe-mock server (scripts/engines.sh `stripe`): the SDK's requests are validated against Stripe's OpenAPI spec there. */
describe('Stripe payment driver (stripe-mock)', () => {
  const driver = new StripePaymentDriver({ secretKey: 'sk_test_123', apiUrl: requireEngine('STRIPE_MOCK_URL') });

  it('creates and confirms a setup intent', async () => {
    const intent = await driver.createSetupIntent({ reference: 'chk_1', projectId: 'p1' });
    expect(intent.id).toMatch(/^seti_/);
    expect(intent.clientSecret).toMatch(/^seti_.+_secret_/);
    expect(typeof intent.status).toBe('string');
    const confirmed = await driver.confirmSetupIntent({ setupIntentId: intent.id, paymentMethodId: 'pm_card_visa' });
    expect(typeof confirmed.status).toBe('string');
  });

  it('initializes a payment as a Checkout Session and verifies it by the session id', async () => {
    const init = await driver.initializePayment({ ...order, reference: 'pay_1', amountCents: 1234, currency: 'USD' });
    expect(init.providerPaymentId).toMatch(/^cs_/);
    expect(init.authorizationUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const outcome = await driver.verifyPayment({ reference: 'pay_1', providerPaymentId: init.providerPaymentId });
    expect(['succeeded', 'pending', 'failed']).toContain(outcome.status);
  });

  it('reports a refused request (a key Stripe does not take) and an unreachable API as a provider error, without the key', async () => {
    const refusedKey = new StripePaymentDriver({ secretKey: 'pk_live_not_a_secret_key', apiUrl: requireEngine('STRIPE_MOCK_URL') });
    const refused = await refusedKey.initializePayment({ ...order, reference: 'pay_2', amountCents: 5, currency: 'USD' }).catch((e) => e);
    expect(refused).toBeInstanceOf(PaymentProviderError);
    expect(refused.message).toMatch(/authenticate/);
    const down = new StripePaymentDriver({ secretKey: 'sk_test_secret_never_shown', apiUrl: 'http://127.0.0.1:1' });
    const err = await down.createSetupIntent({ reference: 'x', projectId: 'p1' }).catch((e) => e);
    expect(err).toBeInstanceOf(PaymentProviderError);
    expect(String(err.message)).not.toContain('sk_test_secret_never_shown');
  });
});

/** The Paystack driver against the HTTP twin of Paystack's API (test/support/paystack-twin.ts). */
describe('Paystack payment driver (HTTP twin)', () => {
  let twin: PaystackTwin;
  beforeAll(async () => {
    twin = await startPaystackTwin('sk_test_paystack');
  });
  afterAll(async () => {
    await twin?.close();
  });

  it('initializes with our reference and the amount in kobo, then verifies pending and, once paid, succeeded', async () => {
    const driver = new PaystackPaymentDriver({ secretKey: 'sk_test_paystack', apiUrl: twin.url });
    const init = await driver.initializePayment({ ...order, reference: 'pay_ng_1', amountCents: 250000, currency: 'NGN' });
    expect(init).toEqual({ providerPaymentId: 'pay_ng_1', authorizationUrl: expect.stringMatching(new RegExp(`^${twin.url}/checkout/`)) });
    expect(twin.requests.at(-1)).toMatchObject({ method: 'POST', path: '/transaction/initialize', authorization: 'Bearer sk_test_paystack', body: { email: order.email, amount: 250000, currency: 'NGN', reference: 'pay_ng_1' } });
    expect(await driver.verifyPayment({ reference: 'pay_ng_1', providerPaymentId: 'pay_ng_1' })).toEqual({ status: 'pending', amountCents: 250000, currency: 'NGN' });
    twin.pay('pay_ng_1');
    expect(await driver.verifyPayment({ reference: 'pay_ng_1', providerPaymentId: 'pay_ng_1' })).toEqual({ status: 'succeeded', amountCents: 250000, currency: 'NGN' });
  });

  it('turns a refused key or an unknown reference into a provider error, and has no setup intents', async () => {
    const wrongKey = new PaystackPaymentDriver({ secretKey: 'sk_wrong', apiUrl: twin.url });
    await expect(wrongKey.initializePayment({ ...order, reference: 'pay_ng_2', amountCents: 100, currency: 'NGN' })).rejects.toThrow(/401: Invalid key/);
    const driver = new PaystackPaymentDriver({ secretKey: 'sk_test_paystack', apiUrl: twin.url });
    await expect(driver.verifyPayment({ reference: 'nope', providerPaymentId: 'nope' })).rejects.toBeInstanceOf(PaymentProviderError);
    await expect(driver.createSetupIntent()).rejects.toBeInstanceOf(UnsupportedPaymentOperation);
  });
});

describe('simulated payment driver', () => {
  it('is deterministic: ids from our reference, paid once verified, the declined test method refused', async () => {
    const sim = new SimulatedPaymentDriver('stripe');
    expect(await sim.createSetupIntent({ reference: 'c1', projectId: 'p1' })).toEqual(await sim.createSetupIntent({ reference: 'c1', projectId: 'p1' }));
    expect((await sim.confirmSetupIntent({ setupIntentId: 'seti_sim_c1', paymentMethodId: 'pm_card_visa' })).status).toBe('succeeded');
    expect((await sim.confirmSetupIntent({ setupIntentId: 'seti_sim_c1', paymentMethodId: 'pm_card_chargeDeclined' })).status).not.toBe('succeeded');
    expect((await sim.verifyPayment()).status).toBe('succeeded');
  });
});
