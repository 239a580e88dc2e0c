import type { z } from 'zod';
import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import type { IndexSpec, ReadDoc } from '../../readstore/src/read-store.port';
import { indexesFor, type ListShape } from '../../readstore/src/list-shapes';
import { createdData, simpleResourceEventTypes, type SimpleResource } from '../../domain/shared/simple-resource';
import type { DocumentProjection } from './document-projection';

/** A simple resource's document: its fields, its project and its creation time. */
export type SimpleResourceDoc<S extends z.ZodObject> = ReadDoc & z.output<S> & { projectId: string; createdAt: string };

/**
 * The read model of a simple resource, derived from its declaration: the created event (any
 * version) writes the document, the deleted event removes it. Its indexes are those its list shape
 * needs (plus any lookups named in `indexes`).
 */
export function simpleResourceProjection<S extends z.ZodObject>(
  resource: SimpleResource<S>,
  model: { name: string; version: number; list: ListShape; indexes?: IndexSpec[] },
): DocumentProjection<SimpleResourceDoc<S>> & { lists: ListShape[] } {
  const { list, indexes = [], ...rest } = model;
  return {
    lists: [list],
    indexes: [...indexesFor([list]), ...indexes],
    eventTypes: simpleResourceEventTypes(resource),
    creates: [resource.events.created, ...Object.keys(resource.events.upcast ?? {})],
    documentId: (event: RecordedEvent) => String((event.data as Record<string, unknown>)[resource.idField]),
    evolve: (_current, recorded: RecordedEvent) => {
      const created = createdData(resource, recorded);
      if (!created) return null; // the deleted event
      const { [resource.idField]: id, ...rest } = created;
      return { ...rest, id: String(id), _position: recorded.position } as SimpleResourceDoc<S>;
    },
    ...rest,
  };
}
