import type { DomainEvent } from '../shared/domain-error';

export const TICKET_STATUSES = ['open', 'pending', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** Who wrote a ticket or a message: the customer (a project credential) or support (`isSupport`). */
export interface TicketAuthor {
  name: string;
  /** Always a string since DECISIONS 17 (the member's, or for an API key the project owner's); null only in events recorded before. */
  email: string | null;
  isSupport: boolean;
}

/*
 * Every event carries what forwarding (email, issue tracker; DECISIONS 17) needs without a read:
 * the project, the ticket's number and subject, the text and its author.
 */
export type TicketNumberAssigned = DomainEvent<'support.TicketNumberAssigned.v1', { projectId: string; ticketId: string; sequence: number; number: string; assignedAt: string }>;

export type TicketOpened = DomainEvent<
  'support.TicketOpened.v1',
  { ticketId: string; projectId: string; number: string; subject: string; message: string; priority: TicketPriority; category: string | null; author: TicketAuthor; openedAt: string }
>;
export type TicketMessageAdded = DomainEvent<
  'support.TicketMessageAdded.v1',
  { ticketId: string; projectId: string; number: string; subject: string; messageId: string; content: string; author: TicketAuthor; addedAt: string }
>;
/** `reason`: a PATCH (`update`), or a customer's reply that reopens a pending or resolved ticket (`customer-reply`). */
export type TicketStatusChanged = DomainEvent<
  'support.TicketStatusChanged.v1',
  { ticketId: string; projectId: string; number: string; from: TicketStatus; to: TicketStatus; reason: 'update' | 'customer-reply'; changedAt: string }
>;
export type TicketPriorityChanged = DomainEvent<'support.TicketPriorityChanged.v1', { ticketId: string; projectId: string; number: string; from: TicketPriority; to: TicketPriority; changedAt: string }>;
export type TicketCategoryChanged = DomainEvent<'support.TicketCategoryChanged.v1', { ticketId: string; projectId: string; number: string; from: string | null; to: string | null; changedAt: string }>;

export type TicketEvent = TicketOpened | TicketMessageAdded | TicketStatusChanged | TicketPriorityChanged | TicketCategoryChanged;

export const TicketEventTypes = {
  TicketNumberAssigned: 'support.TicketNumberAssigned.v1',
  TicketOpened: 'support.TicketOpened.v1',
  TicketMessageAdded: 'support.TicketMessageAdded.v1',
  TicketStatusChanged: 'support.TicketStatusChanged.v1',
  TicketPriorityChanged: 'support.TicketPriorityChanged.v1',
  TicketCategoryChanged: 'support.TicketCategoryChanged.v1',
} as const;

export const ticketStream = (ticketId: string) => `ticket-${ticketId}`;
/** A project's ticket-number sequence (category `ticket`: the support context's topic). */
export const ticketNumbersStream = (projectId: string) => `ticket-numbers-${projectId}`;

/** `TCK-<6-digit sequence per project>` (DECISIONS 17); past 999999 the digits simply grow. */
export const formatTicketNumber = (sequence: number) => `TCK-${String(sequence).padStart(6, '0')}`;
