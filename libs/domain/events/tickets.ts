import type { DomainEvent } from '../shared/domain-error';

/**
 * The events context (DECISIONS 20): the event history's own surface. Its one event is the use of a
 * one-time WebSocket ticket (`POST /v1/events/tickets`): appended to `eventticket-<nonce>` with no
 * stream expected, so a ticket is redeemed once across every API node. The ticket itself (signed,
 * short-lived) is never recorded: the event holds its nonce only, useless once redeemed.
 */
export const EventsEventTypes = {
  TicketRedeemed: 'events.StreamTicketRedeemed.v1',
} as const;

export type StreamTicketRedeemed = DomainEvent<'events.StreamTicketRedeemed.v1', { nonce: string; projectId: string; redeemedAt: string }>;

export const ticketStream = (nonce: string): string => `eventticket-${nonce}`;
