import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { contextOf, toCloudEvent, type CloudEvent } from '../../libs/messaging/src/cloudevents';
import { dataScope, modeOfScope, projectOfScope } from '../../libs/domain/shared/scope';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** One event of a project's history (DECISIONS 20): its CloudEvent (secrets stripped, as on the topics) and what lists filter by. */
export interface EventIndexDoc extends ReadDoc {
  /** The data scope the event belongs to (`<project>` live, `<project>:test` test): a key sees its own mode's events only (DECISIONS 21). */
  scope: string;
  /** The type's prefix: `type=compute` walks this index instead of filtering the whole history. */
  context: string;
  eventType: string;
  subject: string;
  /** Commit time, ISO 8601 UTC. */
  time: string;
  /** The stream's id part (`instance-<id>` → `<id>`): what `?asOf=` finds a resource's streams by. */
  streamKey: string;
  position: number;
  event: CloudEvent;
}

const BY_POSITION = { sortable: ['position'], defaultSort: [{ field: 'position', direction: -1 as const }] };
export const EVENTS_LIST: ListShape = { query: 'GET /v1/events', equal: ['scope'], residual: ['eventType', 'time'], ...BY_POSITION };
export const EVENTS_BY_CONTEXT_LIST: ListShape = { query: 'GET /v1/events?type=<context>', equal: ['scope', 'context'], residual: ['eventType', 'time'], ...BY_POSITION };
export const EVENTS_BY_TYPE_LIST: ListShape = { query: 'GET /v1/events?type=<event type>', equal: ['scope', 'eventType'], residual: ['time'], ...BY_POSITION };
export const EVENTS_BY_SUBJECT_LIST: ListShape = { query: 'GET /v1/events?subject=', equal: ['scope', 'subject'], residual: ['eventType', 'time'], ...BY_POSITION };
export const EVENT_LISTS = [EVENTS_LIST, EVENTS_BY_CONTEXT_LIST, EVENTS_BY_TYPE_LIST, EVENTS_BY_SUBJECT_LIST];
/** `?asOf=` (apps/api/src/common/as-of.ts): the events of the streams named `<prefix>-<id>` of a resource, oldest first. */
export const EVENTS_OF_RESOURCE: ListShape = { query: 'GET /v1/<resources>/{id}?asOf=', equal: ['streamKey'], sorts: [[{ field: 'position', direction: 1 }]] };

const NAME = 'event_index';
const VERSION = 1;

/**
 * The event history's index (ARCHITECTURE, "Event history"): every project event of the given types
 * as one document keyed by the event id, so that `GET /v1/events` pages by (scope, position) and its
 * filters from indexes, never by reading the log. Events without a project (platform bookkeeping) are
 * not indexed. Built for the types the registered contexts record (contexts/modules/events.module.ts).
 */
export function eventIndexProjection(eventTypes: readonly string[]): DocumentProjection<EventIndexDoc> & { lists: ListShape[] } {
  return {
    name: NAME,
    version: VERSION,
    eventTypes,
    creates: eventTypes,
    lists: [...EVENT_LISTS, EVENTS_OF_RESOURCE],
    indexes: indexesFor([...EVENT_LISTS, EVENTS_OF_RESOURCE]),
    documentId: (event: RecordedEvent) => (scopeOfEvent(event) === null ? null : event.id),
    evolve: (_current, e: RecordedEvent) => indexDoc(e),
  };
}

/** The id part of a stream's name: after its first '-' (`instance-<id>`, `apikey-<id>`). */
export const streamKeyOf = (streamId: string): string => streamId.slice(streamId.indexOf('-') + 1);

/**
 * The data scope whose keys see an event (DECISIONS 21): its project in the event's mode (an API key a
 * test key made is recorded under the bare project, in test mode); null for an event of no project.
 */
export function scopeOfEvent(e: Pick<RecordedEvent, 'metadata'>): string | null {
  const scope = e.metadata?.projectId;
  if (typeof scope !== 'string' || !scope) return null;
  return dataScope(projectOfScope(scope), e.metadata.mode === 'test' || modeOfScope(scope) === 'test' ? 'test' : 'live');
}

/**
 * The CloudEvent the history shows (DECISIONS 21: what leaves the service names the bare project):
 * toCloudEvent bares `projectId`, and a test-mode event's other mentions of its scope
 * (`<project>:test` in a stream name or a nested field) are bared here.
 */
export function historyCloudEvent(e: RecordedEvent): CloudEvent {
  const event = toCloudEvent(e);
  const scope = e.metadata?.projectId;
  if (typeof scope !== 'string' || modeOfScope(scope) !== 'test') return event;
  const text = JSON.stringify(event);
  return text.includes(scope) ? (JSON.parse(text.split(scope).join(projectOfScope(scope))) as CloudEvent) : event;
}

/** The index document of a recorded event (null for an event of no project). */
export function indexDoc(e: RecordedEvent): EventIndexDoc | null {
  const scope = scopeOfEvent(e);
  if (scope === null) return null;
  const event = historyCloudEvent(e);
  return {
    id: e.id,
    _position: e.position,
    scope,
    context: contextOf(e.type),
    eventType: e.type,
    subject: event.subject,
    time: new Date(e.recordedAt).toISOString(),
    streamKey: streamKeyOf(e.streamId),
    position: e.position,
    event,
  };
}

/** How readers name the index: a collection resolves by name and version (the registered projection also knows the types). */
export const EVENT_INDEX: DocumentProjection<EventIndexDoc> = eventIndexProjection([]);
