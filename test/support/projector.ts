import type { Decider, DomainEvent } from '../../libs/domain/shared/domain-error';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import type { ReadCollection, ReadDoc } from '../../libs/readstore/src/read-store.port';
import { DocumentProjector, ProjectionCatalog, type DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/**
 * A projection run as the live projector runs it (DocumentProjector: loading, `_position`
 * idempotency, batching) into a real in-memory read store with the projection's indexes.
 * `handle` feeds one batch; `restart` drops the projector's cache so the next batch loads what the
 * store holds (a replay after a crash).
 */
export async function projected<D extends ReadDoc>(projection: DocumentProjection<D>) {
  const store = new MemoryReadStore();
  const physical = ProjectionCatalog.physicalName(projection as unknown as DocumentProjection);
  const collection: ReadCollection<D> = store.collection<D>(physical);
  await collection.ensureIndexes(projection.indexes ?? []);
  const make = () => new DocumentProjector(projection, store, async () => physical);
  let projector = make();
  return {
    collection,
    handle: (...events: RecordedEvent[]) => projector.handle(events),
    restart: () => {
      projector = make();
    },
    get: (id: string) => collection.get(id),
    all: async () => (await collection.find({ filter: {}, sort: [{ field: 'id', direction: 1 }], limit: 1000, withTotal: false })).items,
  };
}

/**
 * Several streams recorded into one log: global positions count up across streams (as the store
 * records them), revisions per stream. `log.stream(id, base)` records events of one stream;
 * `log.decided(id, decider)` records what the domain's decider decides for each command, folding
 * its state as the command handler does (the events as the domain builds them).
 */
export function logRecorder(recordedAt = '2026-01-01T00:00:00.000Z') {
  let position = 0;
  const revisions = new Map<string, number>();
  const stream =
    (streamId: string, base: Record<string, unknown>) =>
    (type: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}): RecordedEvent => {
      const revision = revisions.get(streamId) ?? 0;
      revisions.set(streamId, revision + 1);
      position++;
      return { id: `e${position}`, type, streamId, revision, position, data: { ...base, ...data }, metadata: { schemaVersion: 1, ...metadata }, recordedAt };
    };
  return {
    stream,
    decided: <C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>) => {
      const record = stream(streamId, {});
      let state = decider.initialState();
      return (command: C): RecordedEvent[] =>
        decider.decide(command, state).map((event) => {
          state = decider.evolve(state, event);
          return record(event.type, event.data as Record<string, unknown>);
        });
    },
  };
}
