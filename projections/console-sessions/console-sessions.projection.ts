import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { ConsoleSessionEventTypes, type CloseReason, type ConsoleProtocol, type ConsoleResourceType, type ConsoleSessionEvent, type ConsoleSessionStatus } from '../../libs/domain/consoles/console-session';

/** A console session as GETs show it (never the URL or its token) and as the expiry timer and the closing process find it. */
export interface ConsoleSessionDoc extends ReadDoc {
  projectId: string;
  resourceType: ConsoleResourceType;
  resourceId: string;
  protocol: ConsoleProtocol;
  status: ConsoleSessionStatus;
  expiresAt: string;
  openedBy: string;
  closedAt: string | null;
  closeReason: CloseReason | null;
  createdAt: string;
  updatedAt: string;
}

export const CONSOLE_SESSIONS_LIST: ListShape = { query: 'GET /v1/console-sessions?status=&resourceId=', equal: ['projectId'], residual: ['status', 'resourceId'], sortable: ['createdAt', 'expiresAt', 'status'] };
/** The expiry timer's due-time index and the closing process's lookup of a resource's open sessions. */
const DUE: ListShape = { query: 'console expiry timer', equal: ['status'], sorts: [[{ field: 'expiresAt', direction: 1 }]] };
const OF_RESOURCE: ListShape = { query: 'sessions of a stopped resource', equal: ['resourceId', 'status'], sortable: ['createdAt'] };
const LISTS: ListShape[] = [CONSOLE_SESSIONS_LIST, DUE, OF_RESOURCE];

export const consoleSessionsProjection: DocumentProjection<ConsoleSessionDoc> & { lists: ListShape[] } = {
  name: 'console_sessions',
  version: 1,
  eventTypes: Object.values(ConsoleSessionEventTypes),
  creates: [ConsoleSessionEventTypes.Opened],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { sessionId: string }).sessionId,
  evolve: (current, recorded) => {
    const event = { type: recorded.type, data: recorded.data } as ConsoleSessionEvent;
    switch (event.type) {
      case 'consoles.ConsoleSessionOpened.v1': {
        const d = event.data;
        return { id: d.sessionId, _position: recorded.position, projectId: d.projectId, resourceType: d.resourceType, resourceId: d.resourceId, protocol: d.protocol, status: 'open', expiresAt: d.expiresAt, openedBy: d.openedBy, closedAt: null, closeReason: null, createdAt: d.openedAt, updatedAt: d.openedAt };
      }
      case 'consoles.ConsoleSessionClosed.v1':
        return current && { ...current, _position: recorded.position, status: 'closed', closedAt: event.data.closedAt, closeReason: event.data.reason, updatedAt: event.data.closedAt };
    }
  },
};
