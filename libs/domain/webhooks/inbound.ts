import { createHash } from 'node:crypto';
import type { Decider, DomainEvent } from '../shared/domain-error';

/**
 * Inbound webhooks (DECISIONS 10 and 17): each verified delivery is recorded as received (raw body,
 * headers without secrets) before anything acts on it, then processed once by a checkpointed
 * subscription, which records the outcome. One stream per delivery: a replayed delivery id finds it
 * and decides nothing (acknowledged, not processed again).
 */
export const INBOUND_WEBHOOK_SOURCES = ['stripe', 'paystack', 'github'] as const;
export type InboundWebhookSource = (typeof INBOUND_WEBHOOK_SOURCES)[number];

export type InboundWebhookReceived = DomainEvent<
  'webhooks.InboundWebhookReceived.v1',
  { source: InboundWebhookSource; deliveryId: string; headers: Record<string, string>; body: string; receivedAt: string }
>;
export type InboundWebhookProcessed = DomainEvent<'webhooks.InboundWebhookProcessed.v1', { source: InboundWebhookSource; deliveryId: string; outcome: string; processedAt: string }>;
export type InboundWebhookEvent = InboundWebhookReceived | InboundWebhookProcessed;

export const InboundWebhookEventTypes = { Received: 'webhooks.InboundWebhookReceived.v1', Processed: 'webhooks.InboundWebhookProcessed.v1' } as const;

export type InboundWebhookCommand = ({ type: 'ReceiveWebhook' } & InboundWebhookReceived['data']) | { type: 'RecordWebhookProcessed'; outcome: string; now: string };
export interface InboundWebhookState {
  received: InboundWebhookReceived['data'] | null;
  processed: boolean;
}

export const inboundWebhookDecider: Decider<InboundWebhookCommand, InboundWebhookEvent, InboundWebhookState> = {
  initialState: () => ({ received: null, processed: false }),
  evolve: (state, e) => (e.type === 'webhooks.InboundWebhookReceived.v1' ? { ...state, received: e.data } : { ...state, processed: true }),
  decide: (c, state) => {
    if (c.type === 'ReceiveWebhook') {
      if (state.received) return [];
      const { type: _t, ...data } = c;
      return [{ type: 'webhooks.InboundWebhookReceived.v1', data }];
    }
    if (!state.received || state.processed) return [];
    return [{ type: 'webhooks.InboundWebhookProcessed.v1', data: { source: state.received.source, deliveryId: state.received.deliveryId, outcome: c.outcome, processedAt: c.now } }];
  },
};

/** Delivery ids are the sender's (any text): the stream is named by their hash. */
export const inboundWebhookStream = (source: InboundWebhookSource, deliveryId: string) => `inboundwebhook-${source}-${createHash('sha256').update(deliveryId).digest('hex').slice(0, 40)}`;
