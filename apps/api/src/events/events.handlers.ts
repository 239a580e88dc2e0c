import { ListEventsHandler } from '../../../../usecases/events/list-events';
import { EventStreams } from './event-streams';
import { EventTickets } from './event-tickets';
import { EventSocket } from './event-socket';

/** The events context's providers: the list's use case, and the streams' services (SSE, WebSocket, tickets). */
export const EVENT_HANDLERS = [ListEventsHandler, EventStreams, EventTickets, EventSocket];
