import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { z } from 'zod';
import { TicketEventTypes, type TicketMessageAdded } from '../../libs/domain/support/events';
import type { TICKET_MESSAGE } from '../../libs/domain/support/ticket.fields';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** One message of a ticket's thread: its declared fields (TICKET_MESSAGE), its ticket and its place in the thread. */
export type SupportMessageDoc = ReadDoc &
  z.output<typeof TICKET_MESSAGE.stored> & {
    ticketId: string;
    projectId: string;
    /** The message's place in its ticket's stream: the thread's order (two messages may share a time). */
    revision: number;
  };

const LISTS: ListShape[] = [{ query: 'messages of GET /v1/support/{id}', equal: ['ticketId'], sorts: [[{ field: 'revision', direction: 1 }]] }];

/** Serves the `messages` of a ticket's answers, in the order they were added. */
export const supportMessagesProjection: DocumentProjection<SupportMessageDoc> = {
  name: 'support_messages',
  version: 1,
  eventTypes: [TicketEventTypes.TicketMessageAdded],
  creates: [TicketEventTypes.TicketMessageAdded],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as TicketMessageAdded['data']).messageId,
  evolve: (_current, recorded: RecordedEvent) => {
    const d = recorded.data as TicketMessageAdded['data'];
    return { id: d.messageId, _position: recorded.position, ticketId: d.ticketId, projectId: d.projectId, revision: recorded.revision, content: d.content, author: d.author, timestamp: d.addedAt };
  },
};
