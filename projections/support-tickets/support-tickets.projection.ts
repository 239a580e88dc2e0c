import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { z } from 'zod';
import { TicketEventTypes, type TicketEvent } from '../../libs/domain/support/events';
import type { TICKET } from '../../libs/domain/support/ticket.fields';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** The ticket's declared fields (TICKET, spec 2.6), and the project it belongs to. */
export type SupportTicketDoc = ReadDoc & z.output<typeof TICKET.stored> & { projectId: string };

/**
 * `status` and `priority` filters are checked while walking the project's index in the asked order
 * (a project's tickets are few; an index per filter and sort would triple the indexes).
 */
export const TICKETS_LIST: ListShape = { query: 'GET /v1/support', equal: ['projectId'], residual: ['status', 'priority'], sortable: ['createdAt', 'updatedAt', 'status'] };
const LISTS: ListShape[] = [TICKETS_LIST];

/** Serves GET /v1/support and the ticket part of every ticket answer (its messages: support_messages). */
export const supportTicketsProjection: DocumentProjection<SupportTicketDoc> = {
  name: 'support_tickets',
  version: 1,
  eventTypes: [TicketEventTypes.TicketOpened, TicketEventTypes.TicketMessageAdded, TicketEventTypes.TicketStatusChanged, TicketEventTypes.TicketPriorityChanged, TicketEventTypes.TicketCategoryChanged],
  creates: [TicketEventTypes.TicketOpened],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { ticketId: string }).ticketId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as TicketEvent;
    const touched = (doc: SupportTicketDoc, at: string, change: Partial<SupportTicketDoc>) => ({ ...doc, ...change, _position: recorded.position, updatedAt: at });
    switch (event.type) {
      case 'support.TicketOpened.v1': {
        const d = event.data;
        return {
          id: d.ticketId,
          _position: recorded.position,
          projectId: d.projectId,
          number: d.number,
          subject: d.subject,
          message: d.message,
          status: 'open',
          priority: d.priority,
          category: d.category,
          replies: 0,
          author: d.author,
          createdAt: d.openedAt,
          updatedAt: d.openedAt,
        };
      }
      case 'support.TicketMessageAdded.v1':
        return current && touched(current, event.data.addedAt, { replies: current.replies + 1 });
      case 'support.TicketStatusChanged.v1':
        return current && touched(current, event.data.changedAt, { status: event.data.to });
      case 'support.TicketPriorityChanged.v1':
        return current && touched(current, event.data.changedAt, { priority: event.data.to });
      case 'support.TicketCategoryChanged.v1':
        return current && touched(current, event.data.changedAt, { category: event.data.to });
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
