import type { EventStore, InstantSnapshot, RecordedEvent } from '../../eventstore/src/event-store.port';
import type { ReadDoc } from '../../readstore/src/read-store.port';
import { foldDocument, type DocumentProjection } from './document-projection';

/** A snapshot every this many events of a resource's history: a read as of an instant folds fewer after the nearest one. */
export const INSTANT_SNAPSHOT_EVERY = 100;
const MAX_PAGE = 1000;

/** What the bounded fold needs of a store (the SQL store has it; others fold the whole history). */
export type InstantFoldSource = Pick<EventStore, 'readStream'> & Required<Pick<EventStore, 'streamsOfKey' | 'readInstantSnapshot' | 'writeInstantSnapshots'>>;

export const foldsByInstant = (store: Partial<EventStore>): store is InstantFoldSource =>
  typeof store.streamsOfKey === 'function' && typeof store.readInstantSnapshot === 'function' && typeof store.writeInstantSnapshots === 'function';

interface Kept<D> {
  doc: D | null;
  /** Revision of the last event folded, per stream. */
  revisions: Record<string, number>;
}

/**
 * Document `id` of `projection` as of instant `at` (ms): the events of the streams keyed `id` (named
 * `<prefix>-<id>`) merged in log order, folded by the projection's own step (`foldDocument`) up to the
 * first event committed after `at`, so the state is always that of a prefix of the history.
 *
 * Bounded: every INSTANT_SNAPSHOT_EVERY events of that merged history the state is kept with the
 * latest commit time among the folded events; a read starts from the newest snapshot whose time is
 * at or before `at` and folds what follows. Snapshot boundaries count events from the first, so
 * every reader keeps the same ones. The first read of a long history folds it whole and keeps its
 * snapshots. The streams are read as they stood at one instant (`streamsOfKey`): a consistent prefix
 * of the log, so a snapshot never misses an event below its position.
 */
export async function foldDocumentAsOf<D extends ReadDoc>(store: InstantFoldSource, projection: DocumentProjection<D>, id: string, at: number): Promise<D | null> {
  const name = `${projection.name}@${projection.version}`;
  const [streams, kept] = await Promise.all([store.streamsOfKey(id), store.readInstantSnapshot(id, name, at)]);
  const start: Kept<D> = kept ? (JSON.parse(kept.state) as Kept<D>) : { doc: null, revisions: {} };
  let doc = start.doc;
  const revisions = { ...start.revisions };
  let time = kept ? Date.parse(kept.time) : Number.NEGATIVE_INFINITY;
  const cursors = streams
    .filter((s) => s.revision > (revisions[s.streamId] ?? -1))
    .map((s) => ({ streamId: s.streamId, next: (revisions[s.streamId] ?? -1) + 1, last: s.revision, page: INSTANT_SNAPSHOT_EVERY * 2, buffer: [] as RecordedEvent[] }));
  const fresh: InstantSnapshot[] = [];
  let since = 0;
  for (;;) {
    await Promise.all(
      cursors
        .filter((c) => c.buffer.length === 0 && c.next <= c.last)
        .map(async (c) => {
          // Events past the revision read with the streams are left out: they may be after another stream's unread ones.
          const read = (await store.readStream(c.streamId, { fromRevision: c.next, maxCount: Math.min(c.page, c.last - c.next + 1) })).filter((e) => e.revision <= c.last);
          c.buffer = read;
          c.next = read.length > 0 ? read[read.length - 1]!.revision + 1 : c.last + 1;
          c.page = Math.min(MAX_PAGE, c.page * 2);
        }),
    );
    let first: (typeof cursors)[number] | undefined;
    for (const c of cursors) if (c.buffer.length > 0 && (!first || c.buffer[0]!.position < first.buffer[0]!.position)) first = c;
    if (!first) break;
    const e = first.buffer.shift()!;
    const t = Date.parse(e.recordedAt);
    if (t > at) break;
    doc = foldDocument(projection, [e], id, doc);
    revisions[e.streamId] = e.revision;
    time = Math.max(time, t);
    if (++since === INSTANT_SNAPSHOT_EVERY) {
      since = 0;
      fresh.push({ position: e.position, time: new Date(time).toISOString(), state: JSON.stringify({ doc, revisions } satisfies Kept<D>) });
    }
  }
  // A cache: a write that fails leaves the next read folding a little more, nothing else.
  if (fresh.length > 0) await store.writeInstantSnapshots(id, name, fresh).catch(() => undefined);
  return doc;
}
