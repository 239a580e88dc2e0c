import { randomUUID } from 'node:crypto';
import { paymentDecider, paymentStream } from '../../libs/domain/billing/payments';
import { inboundWebhookDecider, inboundWebhookStream, type InboundWebhookSource } from '../../libs/domain/webhooks/inbound';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { InboundWebhookProcessor } from './inbound-webhooks';

/** Verified provider deliveries settling or failing our payments, against a real (embedded) event store. */
describe('inbound webhooks process manager', () => {
  let store: SqlEventStore;
  const at = '2026-04-01T10:00:00.000Z';
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  async function payment(provider: 'stripe' | 'paystack', amountCents = 2500, currency: 'USD' | 'NGN' = 'USD'): Promise<string> {
    const reference = `ref-${randomUUID()}`;
    await handleCommand(store, paymentStream(reference), paymentDecider, { type: 'InitializePayment', reference, projectId: 'p1', provider, driver: provider, amountCents, currency, providerPaymentId: 'pp', authorizationUrl: 'https://pay.example/x', initializedAt: at }, { metadata: { projectId: 'p1', actor: 'test' } });
    return reference;
  }
  /** Records a verified delivery as the webhook route does, and returns the events the subscription would hand on. */
  async function deliver(source: InboundWebhookSource, body: unknown, headers: Record<string, string> = {}) {
    const deliveryId = randomUUID();
    const from = await store.headPosition();
    await handleCommand(store, inboundWebhookStream(source, deliveryId), inboundWebhookDecider, { type: 'ReceiveWebhook', source, deliveryId, headers, body: typeof body === 'string' ? body : JSON.stringify(body), receivedAt: at }, { metadata: { actor: `webhook:${source}`, correlationId: `corr-${deliveryId}` } });
    return { deliveryId, batch: await store.readAll({ fromPosition: from, maxCount: 100 }) };
  }
  const outcomes = async (source: InboundWebhookSource, deliveryId: string) => (await store.readStream(inboundWebhookStream(source, deliveryId))).filter((e) => e.type === 'webhooks.InboundWebhookProcessed.v1').map((e) => e.data.outcome);
  const paymentEvents = async (reference: string) => (await store.readStream(paymentStream(reference))).slice(1);
  const stripe = (type: string, reference: string, session: Record<string, unknown> = {}) => ({ id: `evt_${randomUUID()}`, type, data: { object: { client_reference_id: reference, payment_status: 'paid', amount_total: 2500, currency: 'usd', ...session } } });

  it('settles a payment from a Stripe completed session once, however often the delivery is handed on', async () => {
    const reference = await payment('stripe');
    const body = stripe('checkout.session.completed', reference);
    const { deliveryId, batch } = await deliver('stripe', body);
    const pm = new InboundWebhookProcessor(store);
    expect(await pm.handle(batch)).toBe(true);
    expect(await pm.handle(batch)).toBe(false);

    const [settled] = await paymentEvents(reference);
    expect(settled.type).toBe('billing.PaymentSettled.v1');
    expect(settled.data).toMatchObject({ reference, amountCents: 2500, currency: 'USD', via: 'webhook', providerEventId: body.id, settledAt: at });
    expect(settled.metadata).toMatchObject({ actor: 'webhook:stripe', causationId: batch[0].id, correlationId: `corr-${deliveryId}` });
    expect(await outcomes('stripe', deliveryId)).toEqual([`settled payment ${reference}`]);
    expect(await paymentEvents(reference)).toHaveLength(1);
  });

  it('settles nothing twice when a second delivery reports the same payment', async () => {
    const reference = await payment('paystack', 500000, 'NGN');
    const first = await deliver('paystack', { event: 'charge.success', data: { reference, amount: 500000, currency: 'NGN' } });
    const second = await deliver('paystack', { event: 'charge.success', data: { reference, amount: 500000, currency: 'NGN' } });
    const pm = new InboundWebhookProcessor(store);
    await pm.handle(first.batch);
    await pm.handle(second.batch);
    expect((await paymentEvents(reference)).map((e) => [e.type, e.data.providerEventId])).toEqual([['billing.PaymentSettled.v1', `charge.success:${reference}`]]);
    expect(await outcomes('paystack', second.deliveryId)).toEqual([`payment ${reference} already succeeded`]);
  });

  it('fails a payment the provider reports at another amount, or reports failed or expired', async () => {
    const [short, expired, failed] = [await payment('stripe'), await payment('stripe'), await payment('paystack')];
    const pm = new InboundWebhookProcessor(store);
    await pm.handle((await deliver('stripe', stripe('checkout.session.completed', short, { amount_total: 100 }))).batch);
    await pm.handle((await deliver('stripe', stripe('checkout.session.expired', expired))).batch);
    await pm.handle((await deliver('paystack', { event: 'charge.failed', data: { reference: failed } })).batch);
    expect((await paymentEvents(short)).map((e) => [e.type, e.data.reason])).toEqual([['billing.PaymentFailed.v1', 'provider reported 100 usd for 2500 USD']]);
    expect((await paymentEvents(expired)).map((e) => [e.type, e.data.reason])).toEqual([['billing.PaymentFailed.v1', 'checkout.session.expired']]);
    expect((await paymentEvents(failed)).map((e) => [e.type, e.data.reason, e.data.via])).toEqual([['billing.PaymentFailed.v1', 'charge.failed', 'webhook']]);
  });

  it('waits for the async event of an unpaid completed session, then settles on it', async () => {
    const reference = await payment('stripe');
    const pm = new InboundWebhookProcessor(store);
    const unpaid = await deliver('stripe', stripe('checkout.session.completed', reference, { payment_status: 'unpaid' }));
    await pm.handle(unpaid.batch);
    expect(await paymentEvents(reference)).toEqual([]);
    expect(await outcomes('stripe', unpaid.deliveryId)).toEqual(['ignored: no payment event']);
    await pm.handle((await deliver('stripe', stripe('checkout.session.async_payment_succeeded', reference))).batch);
    expect((await paymentEvents(reference)).map((e) => e.type)).toEqual(['billing.PaymentSettled.v1']);
  });

  it('records what it ignored: a body that is not JSON, an unknown payment, another event type; and records a CI delivery', async () => {
    const pm = new InboundWebhookProcessor(store);
    const notJson = await deliver('stripe', '{not json');
    const unknown = await deliver('paystack', { event: 'charge.success', data: { reference: 'nobody', amount: 1, currency: 'NGN' } });
    const other = await deliver('stripe', stripe('customer.created', 'ref-x'));
    const github = await deliver('github', { ref: 'main' }, { 'x-github-event': 'push' });
    for (const d of [notJson, unknown, other, github]) expect(await pm.handle(d.batch)).toBe(true);
    expect(await outcomes('stripe', notJson.deliveryId)).toEqual(['ignored: not JSON']);
    expect(await outcomes('paystack', unknown.deliveryId)).toEqual(['ignored: unknown payment nobody']);
    expect(await outcomes('stripe', other.deliveryId)).toEqual(['ignored: no payment event']);
    expect(await outcomes('github', github.deliveryId)).toEqual(['recorded push']);
    expect(await store.readStream(paymentStream('nobody'))).toEqual([]);
  });
});
