import { EventsEventTypes } from '../../libs/domain/events/tickets';
import { eventIndexProjection } from '../../projections/event-index/event-index.projection';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * The event history (DECISIONS 20): `GET /v1/events` reads the index of every other registered
 * context's events; the streams tail the log itself. Built from the modules it indexes, so a new
 * context's events are in the history without a line here. Its own event (a redeemed WebSocket
 * ticket) is bookkeeping: in no index, published by no name.
 */
export function eventsModule(indexed: readonly ContextModule[]): ContextModule {
  return {
    name: 'events',
    projections: [eventIndexProjection(indexed.flatMap((m) => m.eventTypes))],
    eventTypes: Object.values(EventsEventTypes),
    unpublished: Object.values(EventsEventTypes),
  };
}
