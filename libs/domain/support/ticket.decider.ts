import { DomainError, type Decider } from '../shared/domain-error';
import type { TicketAuthor, TicketEvent, TicketPriority, TicketStatus } from './events';

export type TicketState =
  | { status: 'none' }
  | { status: TicketStatus; ticketId: string; projectId: string; number: string; subject: string; priority: TicketPriority; category: string | null; replies: number };

export type OpenTicket = {
  type: 'OpenTicket';
  ticketId: string;
  projectId: string;
  number: string;
  subject: string;
  message: string;
  priority: TicketPriority;
  category: string | null;
  author: TicketAuthor;
  now: string;
};
export type AddTicketMessage = { type: 'AddTicketMessage'; ticketId: string; projectId: string; messageId: string; content: string; author: TicketAuthor; now: string };
/** PATCH: absent fields stay as they are. */
export type UpdateTicket = { type: 'UpdateTicket'; ticketId: string; projectId: string; status?: TicketStatus; priority?: TicketPriority; category?: string | null; now: string };

export type TicketCommand = OpenTicket | AddTicketMessage | UpdateTicket;

type Open = Exclude<TicketState, { status: 'none' }>;

/** Another project's ticket is indistinguishable from a missing one. */
function existing(state: TicketState, projectId: string): Open {
  if (state.status === 'none' || state.projectId !== projectId) throw new DomainError('NOT_FOUND', 'Ticket not found');
  return state;
}

/** `closed` is final (unlike `resolved`, which a reply or a PATCH reopens): a closed ticket takes no change; open a new one. */
function refuseClosed(state: Open, what: string): void {
  if (state.status === 'closed') throw new DomainError('INVALID_STATE', `Ticket ${state.number} is closed: cannot ${what}; open a new ticket`);
}

export const ticketDecider: Decider<TicketCommand, TicketEvent, TicketState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'support.TicketOpened.v1': {
        const { ticketId, projectId, number, subject, priority, category } = event.data;
        return { status: 'open', ticketId, projectId, number, subject, priority, category, replies: 0 };
      }
      case 'support.TicketMessageAdded.v1':
        return state.status === 'none' ? state : { ...state, replies: state.replies + 1 };
      case 'support.TicketStatusChanged.v1':
        return state.status === 'none' ? state : { ...state, status: event.data.to };
      case 'support.TicketPriorityChanged.v1':
        return state.status === 'none' ? state : { ...state, priority: event.data.to };
      case 'support.TicketCategoryChanged.v1':
        return state.status === 'none' ? state : { ...state, category: event.data.to };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'OpenTicket': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Ticket ${command.ticketId} already exists`);
        const { type: _t, now, ...data } = command;
        return [{ type: 'support.TicketOpened.v1', data: { ...data, openedAt: now } }];
      }
      case 'AddTicketMessage': {
        const ticket = existing(state, command.projectId);
        refuseClosed(ticket, 'add a message');
        const { ticketId, projectId, number, subject } = ticket;
        const events: TicketEvent[] = [
          { type: 'support.TicketMessageAdded.v1', data: { ticketId, projectId, number, subject, messageId: command.messageId, content: command.content, author: command.author, addedAt: command.now } },
        ];
        // The customer answering a ticket that waits on them, or one marked resolved, puts it back in support's queue.
        if (!command.author.isSupport && (ticket.status === 'pending' || ticket.status === 'resolved')) {
          events.push({ type: 'support.TicketStatusChanged.v1', data: { ticketId, projectId, number, from: ticket.status, to: 'open', reason: 'customer-reply', changedAt: command.now } });
        }
        return events;
      }
      case 'UpdateTicket': {
        const ticket = existing(state, command.projectId);
        const { ticketId, projectId, number } = ticket;
        const at = command.now;
        const events: TicketEvent[] = [];
        if (command.status !== undefined && command.status !== ticket.status) {
          refuseClosed(ticket, `move to ${command.status}`);
          events.push({ type: 'support.TicketStatusChanged.v1', data: { ticketId, projectId, number, from: ticket.status, to: command.status, reason: 'update', changedAt: at } });
        }
        if (command.priority !== undefined && command.priority !== ticket.priority) {
          refuseClosed(ticket, 'change its priority');
          events.push({ type: 'support.TicketPriorityChanged.v1', data: { ticketId, projectId, number, from: ticket.priority, to: command.priority, changedAt: at } });
        }
        if (command.category !== undefined && command.category !== ticket.category) {
          refuseClosed(ticket, 'change its category');
          events.push({ type: 'support.TicketCategoryChanged.v1', data: { ticketId, projectId, number, from: ticket.category, to: command.category, changedAt: at } });
        }
        // Field changes come before a close in the same PATCH, so a ticket is closed with its final priority and category.
        return events.sort((a, b) => Number(isClose(a)) - Number(isClose(b)));
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

const isClose = (e: TicketEvent) => e.type === 'support.TicketStatusChanged.v1' && e.data.to === 'closed';
