import { paymentDecider, paymentStream } from '../../libs/domain/billing/payments';
import { inboundWebhookDecider, inboundWebhookStream, type InboundWebhookReceived } from '../../libs/domain/webhooks/inbound';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';
import { INBOUND_WEBHOOKS } from '../../usecases/webhooks/receive-inbound-webhook';

/** What a verified payment-provider delivery asks: settle or fail one of our payments (by our reference). */
type PaymentSignal = { reference: string; outcome: 'settle' | 'fail'; amountCents: number | null; currency: string | null; eventId: string; reason: string };

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);

/** Stripe: Checkout Session events (our reference is the session's client_reference_id). */
function stripeSignal(body: Json): PaymentSignal | null {
  const type = str(body.type);
  const session = obj(obj(body.data).object);
  const reference = str(session.client_reference_id) ?? str(obj(session.metadata).reference);
  if (!reference || !type) return null;
  const eventId = str(body.id) ?? '';
  if (type === 'checkout.session.completed' || type === 'checkout.session.async_payment_succeeded') {
    if (type === 'checkout.session.completed' && str(session.payment_status) === 'unpaid') return null; // an async method: its own event follows
    return { reference, outcome: 'settle', amountCents: num(session.amount_total), currency: str(session.currency), eventId, reason: type };
  }
  if (type === 'checkout.session.expired' || type === 'checkout.session.async_payment_failed') return { reference, outcome: 'fail', amountCents: null, currency: null, eventId, reason: type };
  return null;
}

/** Paystack: `{event, data}`, our reference is Paystack's. */
function paystackSignal(body: Json): PaymentSignal | null {
  const event = str(body.event);
  const data = obj(body.data);
  const reference = str(data.reference);
  if (!reference || !event) return null;
  if (event === 'charge.success') return { reference, outcome: 'settle', amountCents: num(data.amount), currency: str(data.currency), eventId: `${event}:${reference}`, reason: event };
  if (event === 'charge.failed') return { reference, outcome: 'fail', amountCents: null, currency: null, eventId: `${event}:${reference}`, reason: event };
  return null;
}

/**
 * Processes each recorded delivery once: a payment provider's settles or fails the payment it names
 * (a payment settles once, however many deliveries and verifies); a CI/CD delivery is recorded.
 * The outcome is appended to the delivery's stream, so a replay of this subscription skips it.
 */
export class InboundWebhookProcessor implements SubscriptionHandler {
  readonly name = INBOUND_WEBHOOKS;

  constructor(private readonly events: EventStore) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let wrote = false;
    for (const e of batch) {
      if (e.type !== 'webhooks.InboundWebhookReceived.v1') continue;
      const d = e.data as InboundWebhookReceived['data'];
      const stream = inboundWebhookStream(d.source, d.deliveryId);
      const context: CommandContext = { metadata: causedBy(e, { actor: `webhook:${d.source}`, correlationId: String(e.metadata.correlationId ?? e.id) }) };
      const state = (await this.events.readStream(stream)).some((x) => x.type === 'webhooks.InboundWebhookProcessed.v1');
      if (state) continue;
      const outcome = await this.process(d, context);
      const result = await handleCommand(this.events, stream, inboundWebhookDecider, { type: 'RecordWebhookProcessed', outcome, now: d.receivedAt }, context);
      wrote ||= result.position !== null;
    }
    return wrote;
  }

  private async process(d: InboundWebhookReceived['data'], context: CommandContext): Promise<string> {
    if (d.source === 'github') return `recorded ${d.headers['x-github-event'] ?? 'event'}`;
    let body: Json;
    try {
      body = obj(JSON.parse(d.body));
    } catch {
      return 'ignored: not JSON';
    }
    const signal = d.source === 'stripe' ? stripeSignal(body) : paystackSignal(body);
    if (!signal) return 'ignored: no payment event';
    const stream = paymentStream(signal.reference);
    if ((await this.events.readStream(stream, { maxCount: 1 })).length === 0) return `ignored: unknown payment ${signal.reference}`;
    const command =
      signal.outcome === 'settle'
        ? { type: 'SettlePayment' as const, via: 'webhook' as const, providerEventId: signal.eventId, paidAmountCents: signal.amountCents, paidCurrency: signal.currency, now: d.receivedAt }
        : { type: 'FailPayment' as const, via: 'webhook' as const, reason: signal.reason, now: d.receivedAt };
    const result = await handleCommand(this.events, stream, paymentDecider, command, context);
    const decided = result.events[0]?.type;
    return decided ? `${decided === 'billing.PaymentSettled.v1' ? 'settled' : 'failed'} payment ${signal.reference}` : `payment ${signal.reference} already ${result.state.status}`;
  }
}
