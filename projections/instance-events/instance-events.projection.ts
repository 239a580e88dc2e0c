import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { INSTANCE_EVENT_TYPES } from '../../libs/domain/compute/instance.events';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** One entry of an instance's activity log: an event of its stream, as recorded. */
export interface InstanceEventDoc extends ReadDoc {
  instanceId: string;
  event: string;
  /** The event's place in the instance's stream: the log's order (several events may share a time). */
  revision: number;
  data: Record<string, unknown>;
  actor: string | null;
  createdAt: string;
}

export const INSTANCE_EVENTS_LIST: ListShape = { query: 'GET /v1/instances/{id}/events', equal: ['instanceId'], sortable: ['revision'], defaultSort: [{ field: 'revision', direction: -1 }] };

/**
 * Serves GET /v1/instances/{id}/events (DECISIONS 12: lists never read the event store): each event
 * of an instance's stream is a document, paged by the instance's revision order.
 */
export const instanceEventsProjection: DocumentProjection<InstanceEventDoc> & { lists: ListShape[] } = {
  name: 'instance_events',
  version: 1,
  eventTypes: INSTANCE_EVENT_TYPES,
  creates: INSTANCE_EVENT_TYPES,
  lists: [INSTANCE_EVENTS_LIST],
  indexes: indexesFor([INSTANCE_EVENTS_LIST]),
  documentId: (event: RecordedEvent) => event.id,
  evolve: (_current, e: RecordedEvent) => ({
    id: e.id,
    _position: e.position,
    instanceId: e.streamId.slice('instance-'.length),
    event: e.type,
    revision: e.revision,
    data: e.data,
    actor: typeof e.metadata.actor === 'string' ? e.metadata.actor : null,
    createdAt: e.recordedAt,
  }),
};
