import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import type { EventStore, RecordedEvent } from '../../eventstore/src/event-store.port';
import type { ReadDoc } from '../../readstore/src/read-store.port';
import { foldDocument, type DocumentProjection } from '../src/document-projection';
import { foldDocumentAsOf, INSTANT_SNAPSHOT_EVERY, type InstantFoldSource } from '../src/instant-fold';
import { requireEngine } from '../../../test/engines';
import { eventually } from '../../../test/support/wait';

interface Tally extends ReadDoc {
  sum: number;
  count: number;
  last: string;
}

/** A document folded from two streams of one resource (`tally-<id>`, `tallynote-<id>`), as an instance is from its stream. */
const tallies: DocumentProjection<Tally> = {
  name: 'tallies',
  version: 1,
  eventTypes: ['test.Added.v1', 'test.Noted.v1'],
  documentId: (e) => String(e.data.id),
  evolve: (doc, e) => {
    const base = doc ?? { id: String(e.data.id), _position: 0, sum: 0, count: 0, last: '' };
    return e.type === 'test.Added.v1' ? { ...base, sum: base.sum + Number(e.data.n), count: base.count + 1 } : { ...base, last: String(e.data.note) };
  },
};

/** The store, counting the events its streams hand out. */
function counting(store: EventStore): InstantFoldSource & { read: number } {
  const counter = {
    read: 0,
    readStream: async (...a: Parameters<EventStore['readStream']>) => {
      const events = await store.readStream(...a);
      counter.read += events.length;
      return events;
    },
    streamsOfKey: store.streamsOfKey!.bind(store),
    readInstantSnapshot: store.readInstantSnapshot!.bind(store),
    writeInstantSnapshots: store.writeInstantSnapshots!.bind(store),
  };
  return counter;
}

/** The reference: every event of the resource's streams in log order, cut at the first committed after `at`, folded from nothing. */
async function reference(store: EventStore, streams: string[], id: string, at: number): Promise<Tally | null> {
  const all: RecordedEvent[] = (await Promise.all(streams.map((s) => store.readStream(s)))).flat().sort((a, b) => a.position - b.position);
  const past = all.findIndex((e) => Date.parse(e.recordedAt) > at);
  return foldDocument(tallies, past === -1 ? all : all.slice(0, past), id);
}

type Fixture = { open: () => Promise<SqlEventStore>; cleanup: () => Promise<void> };

describe.each<[string, () => Promise<Fixture>]>([
  ['PGlite', async () => {
    const dir = `/tmp/instant-fold-${randomUUID()}`;
    // One embedded database per process: "opened afresh" is the same directory after a close.
    return { open: () => SqlEventStore.pglite(dir, { schema: 'es_instant' }), cleanup: async () => (await import('node:fs')).rmSync(dir, { recursive: true, force: true }) };
  }],
  ['PostgreSQL', async () => {
    const url = requireEngine('PG_URL');
    const schema = `es_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    return {
      open: () => SqlEventStore.postgres(url, { schema, poolSize: 2 }),
      cleanup: async () => {
        const c = new Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.end();
      },
    };
  }],
])('a document as of an instant, from snapshots (%s)', (_name, makeFixture) => {
  let fixture: Fixture;
  let store: SqlEventStore;
  const id = randomUUID();
  const streams = [`tally-${id}`, `tallynote-${id}`];
  /** Commit times of the history, in log order. */
  const instants: number[] = [];

  beforeAll(async () => {
    fixture = await makeFixture();
    store = await fixture.open();
    // Noise under another key, and a stream whose name only ends like the resource's.
    await store.append(`tally-${randomUUID()}`, [{ id: randomUUID(), type: 'test.Added.v1', data: { id, n: 1000 }, metadata: { schemaVersion: 1 } }], { expectedRevision: 'any' });
    let n = 0;
    for (let commit = 0; commit < 80; commit++) {
      const size = 1 + ((commit * 7) % 23);
      const added = Array.from({ length: size }, () => ({ id: randomUUID(), type: 'test.Added.v1', data: { id, n: ++n }, metadata: { schemaVersion: 1 } }));
      const [r] = await store.appendMany(
        commit % 3 === 0
          ? [{ streamId: streams[0]!, events: added, expectedRevision: 'any' }, { streamId: streams[1]!, events: [{ id: randomUUID(), type: 'test.Noted.v1', data: { id, note: `c${commit}` }, metadata: { schemaVersion: 1 } }], expectedRevision: 'any' }]
          : [{ streamId: streams[0]!, events: added, expectedRevision: 'any' }],
      );
      const [e] = await store.readStream(streams[0]!, { fromRevision: r!.nextRevision, maxCount: 1 });
      instants.push(Date.parse(e!.recordedAt));
      // Commits a millisecond apart at least, so that instants between them exist: the next commit waits for the clock to pass this one.
      const last = instants[instants.length - 1]!;
      await eventually(async () => Date.now(), (now) => now > last + 1, 5_000, 1);
    }
  });
  afterAll(async () => {
    await store?.close();
    await fixture?.cleanup();
  });

  it('equals the fold of the events up to every instant of the history, before, between and after its commits', async () => {
    const samples = [instants[0]! - 1, ...instants.flatMap((t) => [t, t + 1]), Date.now() + 60_000];
    // Newest first: the first read folds the whole history and keeps its snapshots; then oldest first from them.
    for (const at of [...samples].reverse().slice(0, 1).concat(samples)) {
      expect([at, await foldDocumentAsOf(store, tallies, id, at)]).toEqual([at, await reference(store, streams, id, at)]);
    }
  });

  it('folds at most a few snapshots apart after the first read, also on a store opened afresh', async () => {
    const total = (await Promise.all(streams.map((s) => store.readStream(s)))).flat().length;
    expect(total).toBeGreaterThan(8 * INSTANT_SNAPSHOT_EVERY);
    await store.close();
    store = await fixture.open();
    for (const at of [instants[instants.length - 1]!, instants[40]!, instants[5]!]) {
      const counted = counting(store);
      expect(await foldDocumentAsOf(counted, tallies, id, at)).toEqual(await reference(store, streams, id, at));
      expect(counted.read).toBeLessThanOrEqual(2 * 2 * INSTANT_SNAPSHOT_EVERY);
    }
  });
});
