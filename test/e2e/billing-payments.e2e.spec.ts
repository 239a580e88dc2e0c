import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { paymentStream } from '../../libs/domain/billing/payments';
import { inboundWebhookStream } from '../../libs/domain/webhooks/inbound';
import { requireEngine } from '../engines';
import { startPaystackTwin, type PaystackTwin } from '../support/paystack-twin';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;

const STRIPE_WEBHOOK_SECRET = 'whsec_test_inbound_0123456789';
const PAYSTACK_SECRET = 'sk_test_paystack_0123456789';
const GITHUB_SECRET = 'gh_hook_secret_0123456789';
const stripe = new Stripe('sk_test_123');

describe.each<Profile>(['embedded', 'server'])('checkout, payments and inbound webhooks (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Api;
  let admin: Api;
  let twin: PaystackTwin;

  beforeAll(async () => {
    twin = await startPaystackTwin(PAYSTACK_SECRET);
    // Stripe has no secret key here, so its driver is the simulator; its webhooks are verified with the secret.
    srv = await startTestServer(profile, { STRIPE_WEBHOOK_SECRET, PAYSTACK_SECRET_KEY: PAYSTACK_SECRET, PAYSTACK_API_URL: twin.url, GITHUB_WEBHOOK_SECRET: GITHUB_SECRET });
    // A live key: the bootstrap key is a test key, and test mode always uses the simulators (DECISIONS 21).
    const live = await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    expect(live.body.data.attributes.mode).toBe('live');
    owner = srv.as(live.body.data.attributes.key);
    admin = srv.as(srv.bootstrap.adminKey);
  });
  afterAll(async () => {
    await srv?.stop();
    await twin?.close();
  });

  const balance = async (currency: string) => (await owner.get(`/v1/billing/wallets/${currency}`)).body.data.attributes.balanceCents as number;
  const streamTypes = async (stream: string) => (await srv.platform.events.readStream(stream)).map((e) => e.type);

  it('checkout: setup intent, an admin-managed promo code (unknown 422), completion crediting the wallet and the promo once', async () => {
    const promo = await admin.send('PUT', '/v1/admin/billing/promos/WELCOME10', { amountCents: 1000, currency: 'USD', description: 'Welcome' });
    expect(promo.status).toBe(200);
    expect(promo.body.data).toMatchObject({ id: 'WELCOME10', type: 'promo-codes', attributes: { amountCents: 1000, active: true } });
    expect((await owner.send('PUT', '/v1/admin/billing/promos/WELCOME10', { amountCents: 1, currency: 'USD' })).status).toBe(403);
    expect((await admin.send('PUT', '/v1/admin/billing/promos/bad%20code', { amountCents: 1, currency: 'USD' })).status).toBe(400);
    await admin.send('PUT', '/v1/admin/billing/promos/RETIRED', { amountCents: 1000, currency: 'USD', active: false });

    const before = await balance('USD');
    const started = await owner.post('/v1/billing/checkout/setup-intent', { amountCents: 5000 });
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ type: 'checkout-sessions', attributes: { status: 'requires_payment_method', provider: 'stripe', amountCents: 5000, currency: 'USD', promo: null } });
    const { id } = started.body.data;
    const { clientSecret, setupIntentId } = started.body.data.attributes;
    expect(clientSecret).toMatch(/_secret_/);

    for (const code of ['NOPE', 'RETIRED']) {
      const unknown = await owner.post(`/v1/billing/checkout/${id}/promo`, { code });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors[0].code).toBe('INVALID_PROMO_CODE');
    }
    const applied = await owner.post(`/v1/billing/checkout/${id}/promo`, { code: 'welcome10' });
    expect(applied.status).toBe(200);
    expect(applied.body.data.attributes.promo).toEqual({ code: 'WELCOME10', amountCents: 1000, currency: 'USD' });
    expect(applied.body.data.attributes).not.toHaveProperty('clientSecret');

    expect((await owner.post(`/v1/billing/checkout/${id}/complete`, { paymentMethodId: 'pm_card_visa', setupIntentId: 'seti_other' })).status).toBe(400);
    expect((await owner.post('/v1/billing/checkout/missing/complete', { paymentMethodId: 'pm_card_visa', setupIntentId })).status).toBe(404);
    const done = await owner.post(`/v1/billing/checkout/${id}/complete`, { paymentMethodId: 'pm_card_visa', setupIntentId });
    expect(done.status).toBe(200);
    expect(done.body.data.attributes).toMatchObject({ status: 'succeeded', balanceCents: before + 6000 });
    const again = await owner.post(`/v1/billing/checkout/${id}/complete`, { paymentMethodId: 'pm_card_visa', setupIntentId });
    expect(again.body.data.attributes).toMatchObject({ status: 'succeeded', balanceCents: before + 6000 });
    expect((await owner.post(`/v1/billing/checkout/${id}/promo`, { code: 'WELCOME10' })).status).toBe(200); // same code: nothing changes
    expect(await balance('USD')).toBe(before + 6000);

    const credits = (await owner.get('/v1/billing/credits?limit=100')).body.data.map((c: { attributes: { source: string; reference: string; amountCents: number } }) => c.attributes);
    expect(credits).toEqual(expect.arrayContaining([expect.objectContaining({ source: 'checkout', reference: id, amountCents: 5000 }), expect.objectContaining({ source: 'promo', reference: `checkout:${id}:promo`, amountCents: 1000 })]));

    // a declined payment method fails the session and credits nothing
    const declined = await owner.post('/v1/billing/checkout/setup-intent', { amountCents: 700 });
    const failed = await owner.post(`/v1/billing/checkout/${declined.body.data.id}/complete`, { paymentMethodId: 'pm_card_chargeDeclined', setupIntentId: declined.body.data.attributes.setupIntentId });
    expect(failed.body.data.attributes.status).toBe('failed');
    expect(await balance('USD')).toBe(before + 6000);

    // the client secret is shown once and stored nowhere
    const events = JSON.stringify(await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 }));
    expect(events).not.toContain(clientSecret);
    expect(srv.logs()).not.toContain(clientSecret);
    // Paystack has no setup intents
    expect((await owner.post('/v1/billing/checkout/setup-intent', { amountCents: 700, currency: 'NGN' })).body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
  });

  it('paystack: initialize at the provider (HTTP twin), verify pending, then settled once however often verified', async () => {
    const before = await balance('NGN');
    const init = await owner.post('/v1/payments/paystack/initialize', { amountCents: 250000, email: 'payer@example.com' });
    expect(init.status).toBe(201);
    const { reference, authorizationUrl } = init.body.data.attributes;
    expect(authorizationUrl).toMatch(new RegExp(`^${twin.url}/checkout/`));
    expect(init.body.data.attributes).toMatchObject({ provider: 'paystack', currency: 'NGN', amountCents: 250000, status: 'pending' });
    expect(twin.requests.at(-1)).toMatchObject({ path: '/transaction/initialize', body: { reference, amount: 250000, email: 'payer@example.com' } });

    const pending = await owner.post('/v1/payments/verify', { paymentIntentId: reference });
    expect(pending.body.data.attributes).toMatchObject({ status: 'pending', balanceCents: before });
    twin.pay(reference);
    const verifies = await Promise.all(Array.from({ length: 5 }, () => owner.post('/v1/payments/verify', { paymentIntentId: reference })));
    expect(verifies.map((v) => v.status)).toEqual(Array(5).fill(200));
    for (const v of verifies) expect(v.body.data.attributes.status).toBe('succeeded');
    expect(await balance('NGN')).toBe(before + 250000);
    expect((await streamTypes(paymentStream(reference))).filter((t) => t === 'billing.PaymentSettled.v1')).toHaveLength(1);

    expect((await owner.post('/v1/payments/paystack/initialize', { amountCents: 100, currency: 'USD' })).status).toBe(400);
    expect((await owner.post('/v1/payments/paypal/initialize', { amountCents: 100 })).status).toBe(404);
    expect((await owner.post('/v1/payments/verify', { paymentIntentId: 'pay_unknown' })).status).toBe(404);
    expect((await owner.post('/v1/payments/verify', {})).status).toBe(400);
  });

  /** A Stripe delivery as Stripe sends it: signed over the exact bytes with the SDK's own helper. */
  function stripeDelivery(event: object, options: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify(event, null, 1); // spacing a re-serialisation would lose: the raw body must be what is verified
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? STRIPE_WEBHOOK_SECRET, timestamp: options.timestamp });
    return { payload, headers: { 'Stripe-Signature': header } };
  }
  const sessionCompleted = (id: string, reference: string, amount: number) => ({ id, object: 'event', type: 'checkout.session.completed', data: { object: { id: `cs_${id}`, object: 'checkout.session', client_reference_id: reference, amount_total: amount, currency: 'usd', payment_status: 'paid' } } });

  it('stripe webhooks: verified over the raw body (wrong secret, expired timestamp, changed body: 401), processed once per delivery, settling the payment once', async () => {
    const before = await balance('USD');
    const init = await owner.post('/v1/payments/stripe-initialize', { amountCents: 1500 });
    expect(init.status).toBe(201);
    expect(init.body.data.attributes).toMatchObject({ provider: 'stripe', currency: 'USD' });
    const reference = init.body.data.attributes.reference;
    const event = sessionCompleted('evt_stripe_1', reference, 1500);

    const wrongSecret = stripeDelivery(event, { secret: 'whsec_wrong' });
    expect((await srv.anonymous.send('POST', '/v1/webhooks/stripe', wrongSecret.payload, wrongSecret.headers)).status).toBe(401);
    const expired = stripeDelivery(event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect((await srv.anonymous.send('POST', '/v1/webhooks/stripe', expired.payload, expired.headers)).status).toBe(401);
    const signed = stripeDelivery(event);
    const changed = signed.payload.replace('1500', '9500');
    expect(changed).not.toBe(signed.payload);
    const tampered = await srv.anonymous.send('POST', '/v1/webhooks/stripe', changed, signed.headers);
    expect(tampered.status).toBe(401);
    expect(tampered.body.errors[0].code).toBe('UNAUTHORIZED');
    expect((await srv.anonymous.send('POST', '/v1/webhooks/stripe', signed.payload)).status).toBe(401);
    expect(await balance('USD')).toBe(before);

    const first = await srv.anonymous.send('POST', '/v1/webhooks/stripe', signed.payload, signed.headers);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { type: 'webhook-receipt', attributes: { received: true, processed: true } } });
    const replay = await srv.anonymous.send('POST', '/v1/webhooks/stripe', signed.payload, signed.headers);
    expect(replay.body).toEqual(first.body);
    const stream = inboundWebhookStream('stripe', 'evt_stripe_1');
    expect(await streamTypes(stream)).toEqual(['webhooks.InboundWebhookReceived.v1', 'webhooks.InboundWebhookProcessed.v1']);
    const [received] = await srv.platform.events.readStream(stream);
    expect(received.data).toMatchObject({ source: 'stripe', deliveryId: 'evt_stripe_1', body: signed.payload });
    expect(Object.keys(received.data.headers as object)).not.toContain('x-service-api-key');

    // another delivery about the same payment, and a verify: the payment stays settled once
    const second = stripeDelivery(sessionCompleted('evt_stripe_2', reference, 1500));
    expect((await srv.anonymous.send('POST', '/v1/webhooks/stripe', second.payload, second.headers)).body.data.attributes).toEqual({ received: true, processed: true });
    expect((await owner.post('/v1/payments/verify', { paymentIntentId: reference })).body.data.attributes).toMatchObject({ status: 'succeeded', balanceCents: before + 1500 });
    expect(await balance('USD')).toBe(before + 1500);
    expect((await streamTypes(paymentStream(reference))).filter((t) => t === 'billing.PaymentSettled.v1')).toHaveLength(1);
    const [outcome] = (await srv.platform.events.readStream(inboundWebhookStream('stripe', 'evt_stripe_2'))).slice(1);
    expect(outcome.data.outcome).toBe(`payment ${reference} already succeeded`);

    // a delivery reporting another amount fails the payment instead of crediting it
    const other = (await owner.post('/v1/payments/stripe/initialize', { amountCents: 800 })).body.data.attributes.reference;
    const wrongAmount = stripeDelivery(sessionCompleted('evt_stripe_3', other, 1));
    await srv.anonymous.send('POST', '/v1/webhooks/stripe', wrongAmount.payload, wrongAmount.headers);
    expect((await owner.post('/v1/payments/verify', { paymentIntentId: other })).body.data.attributes.status).toBe('failed');
    expect(await balance('USD')).toBe(before + 1500);
  });

  it('paystack and github webhooks: their signatures, delivery ids and replays; an unknown source 404; no API key involved', async () => {
    const before = await balance('NGN');
    const { reference } = (await owner.post('/v1/payments/paystack/initialize', { amountCents: 40000 })).body.data.attributes;
    const body = JSON.stringify({ event: 'charge.success', data: { reference, amount: 40000, currency: 'NGN', status: 'success' } });
    const signature = createHmac('sha512', PAYSTACK_SECRET).update(body).digest('hex');
    expect((await srv.anonymous.send('POST', '/v1/webhooks/paystack', body, { 'x-paystack-signature': signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) })).status).toBe(401);
    const ok = await srv.anonymous.send('POST', '/v1/webhooks/paystack', body, { 'x-paystack-signature': signature });
    expect(ok.body.data.attributes).toEqual({ received: true, processed: true });
    expect((await srv.anonymous.send('POST', '/v1/webhooks/paystack', body, { 'x-paystack-signature': signature })).body.data.attributes).toEqual({ received: true, processed: true });
    // the credit follows the settlement (a process manager); a verify answers once it shows
    expect((await owner.post('/v1/payments/verify', { paymentIntentId: reference })).body.data.attributes).toMatchObject({ status: 'succeeded', balanceCents: before + 40000 });
    expect(await balance('NGN')).toBe(before + 40000);

    const push = JSON.stringify({ ref: 'refs/heads/main', after: 'abc123' });
    const hub = `sha256=${createHmac('sha256', GITHUB_SECRET).update(push).digest('hex')}`;
    const headers = { 'X-Hub-Signature-256': hub, 'X-GitHub-Delivery': 'delivery-42', 'X-GitHub-Event': 'push' };
    expect((await srv.anonymous.send('POST', '/v1/webhooks/github', push, { ...headers, 'X-Hub-Signature-256': 'sha256=00' })).status).toBe(401);
    expect((await srv.anonymous.send('POST', '/v1/webhooks/github', push, { 'X-Hub-Signature-256': hub })).status).toBe(401); // no delivery id
    expect((await srv.anonymous.send('POST', '/v1/webhooks/github', push, headers)).body.data.attributes).toEqual({ received: true, processed: true });
    expect((await srv.anonymous.send('POST', '/v1/webhooks/github', push, headers)).body.data.attributes).toEqual({ received: true, processed: true });
    expect(await streamTypes(inboundWebhookStream('github', 'delivery-42'))).toEqual(['webhooks.InboundWebhookReceived.v1', 'webhooks.InboundWebhookProcessed.v1']);

    const unknown = await srv.anonymous.send('POST', '/v1/webhooks/gitlab', push, headers);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('NOT_FOUND');
    // an API key changes nothing: the signature decides
    expect((await owner.send('POST', '/v1/webhooks/github', push, { ...headers, 'X-Hub-Signature-256': 'sha256=00' })).status).toBe(401);

    for (const secret of [STRIPE_WEBHOOK_SECRET, PAYSTACK_SECRET, GITHUB_SECRET]) {
      expect(JSON.stringify(await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 }))).not.toContain(secret);
      expect(srv.logs()).not.toContain(secret);
    }
  });
});

describe('the Stripe driver behind the API (stripe-mock)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer('embedded', { STRIPE_SECRET_KEY: 'sk_test_123', STRIPE_API_URL: requireEngine('STRIPE_MOCK_URL') });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('creates the setup intent and the checkout session at Stripe', async () => {
    // A live key: the bootstrap key is a test key, whose payments always go to the simulator (DECISIONS 21).
    const owner = srv.as((await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'live', mode: 'live' })).body.data.attributes.key);
    const started = await owner.post('/v1/billing/checkout/setup-intent', { amountCents: 5000 });
    expect(started.status).toBe(201);
    expect(started.body.data.attributes.setupIntentId).toMatch(/^seti_/);
    expect(started.body.data.attributes.clientSecret).toMatch(/^seti_.+_secret_/);
    const init = await owner.post('/v1/payments/stripe/initialize', { amountCents: 1200 });
    expect(init.status).toBe(201);
    expect(init.body.data.attributes.authorizationUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    // stripe-mock answers a fixture session that is not paid: verify leaves the payment pending
    const verified = await owner.post('/v1/payments/verify', { paymentIntentId: init.body.data.attributes.reference });
    expect(verified.body.data.attributes.status).toBe('pending');
  });
});
