import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import type { ReadDoc, ReadStore } from '../../readstore/src/read-store.port';
import { MemoryReadStore } from '../../readstore/src/memory-read-store';
import { MongoReadStore } from '../../readstore/src/mongo-read-store';
import { ReadStoreCheckpointStore } from '../src/checkpoint-store';
import { DocumentProjector, type DocumentProjection } from '../src/document-projection';
import { ProjectionEngine } from '../src/projection-engine';
import { SubscriptionRunner } from '../src/subscription-runner';
import { requireEngine } from '../../../test/engines';

interface CounterDoc extends ReadDoc {
  count: number;
  seen: number[];
}

const counters: DocumentProjection<CounterDoc> = {
  name: 'counters',
  version: 1,
  eventTypes: ['test.Counted.v1', 'test.CounterDeleted.v1'],
  indexes: [{ fields: [{ field: 'count', direction: -1 }] }],
  documentId: (e) => (e.data as { counterId: string }).counterId,
  evolve: (current, e) => {
    if (e.type === 'test.CounterDeleted.v1') return null;
    const id = (e.data as { counterId: string }).counterId;
    return { id, _position: e.position, count: (current?.count ?? 0) + 1, seen: [...(current?.seen ?? []), e.position] };
  },
};

const ev = (counterId: string, type = 'test.Counted.v1') => ({ id: randomUUID(), type, data: { counterId }, metadata: { schemaVersion: 1 } });

async function until(cond: () => Promise<boolean> | boolean, ms = 15000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pgUrl = requireEngine('PG_URL');
const mongoUrl = requireEngine('MONGO_URL');

describe.each(['memory', 'mongodb'] as const)('projections over PostgreSQL events into %s', (kind) => {
  let events: SqlEventStore;
  let reads: ReadStore;
  const schema = `sub_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const db = `sub_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

  beforeAll(async () => {
    events = await SqlEventStore.postgres(pgUrl, { schema });
    reads = kind === 'memory' ? new MemoryReadStore() : await MongoReadStore.connect(mongoUrl, db);
  });
  afterAll(async () => {
    await events.close();
    await reads.close();
    const pg = new Client({ connectionString: pgUrl });
    await pg.connect();
    await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pg.end();
    if (kind === 'mongodb') {
      const m = await MongoClient.connect(mongoUrl);
      await m.db(db).dropDatabase();
      await m.close();
    }
  });

  it('resumes from its checkpoint after a stop: handles only what came after', async () => {
    const checkpoints = new ReadStoreCheckpointStore(reads);
    const seen: RecordedEvent[] = [];
    const name = `resume-${randomUUID()}`;
    const handler = { name, handle: async (batch: RecordedEvent[]) => void seen.push(...batch) };
    const start = await events.headPosition();
    await checkpoints.save(name, start);
    const stream = `c-${randomUUID()}`;
    await events.append(stream, [ev('a'), ev('a')], { expectedRevision: 'no_stream' });
    const first = new SubscriptionRunner(events, checkpoints, handler);
    await first.start();
    await until(() => seen.length === 2);
    await first.stop();
    expect(await checkpoints.load(name)).toBe(seen[1].position);

    await events.append(stream, [ev('a')], { expectedRevision: 1 });
    const second = new SubscriptionRunner(events, checkpoints, handler);
    await second.start();
    await until(() => seen.length === 3);
    await new Promise((r) => setTimeout(r, 200));
    await second.stop();
    expect(seen.map((e) => e.revision)).toEqual([0, 1, 2]);
  });

  it('applies a replayed batch idempotently (a crash between the write and the checkpoint changes nothing)', async () => {
    const id = `ctr-${randomUUID()}`;
    const start = await events.headPosition();
    await events.append(`c-${id}`, [ev(id), ev(id), ev(id)], { expectedRevision: 'no_stream' });
    const batch = await events.readAll({ fromPosition: start, maxCount: 100 });
    const physical = `counters_idem_${randomUUID().slice(0, 8)}`;
    const projector = new DocumentProjector(counters, reads, async () => physical);
    await projector.handle(batch);
    // The process "crashed" before saving the checkpoint: the same batch, and a longer one, come again.
    await projector.handle(batch);
    await events.append(`c-${id}`, [ev(id)], { expectedRevision: 2 });
    await projector.handle(await events.readAll({ fromPosition: start, maxCount: 100 }));
    const doc = await reads.collection<CounterDoc>(physical).get(id);
    expect(doc?.count).toBe(4);
    expect(new Set(doc?.seen).size).toBe(4);
  });

  it('waits for a position (read-your-writes) and gives up after the bounded wait', async () => {
    const engine = new ProjectionEngine(events, reads, new ReadStoreCheckpointStore(reads), [counters as unknown as DocumentProjection]);
    await engine.start();
    try {
      const id = `ctr-${randomUUID()}`;
      const r = await events.append(`c-${id}`, [ev(id)], { expectedRevision: 'no_stream' });
      expect(await engine.runner('counters').waitFor(r.position, 5000)).toBe(true);
      const doc = await (await engine.collection(counters)).get(id);
      expect(doc?.count).toBe(1);
      expect(await engine.runner('counters').waitFor(r.position + 1_000_000, 50)).toBe(false);
    } finally {
      await engine.stop();
    }
  });

  it('rebuilds into a fresh collection and switches without a moment of missing data', async () => {
    const engine = new ProjectionEngine(events, reads, new ReadStoreCheckpointStore(reads), [counters as unknown as DocumentProjection]);
    await engine.start();
    try {
      const ids = Array.from({ length: 20 }, () => `ctr-${randomUUID()}`);
      let last = 0;
      for (const id of ids) last = (await events.append(`c-${id}`, [ev(id), ev(id)], { expectedRevision: 'no_stream' })).position;
      await engine.runner('counters').waitFor(last, 10000);
      const before = await engine.catalog.resolve(counters as unknown as DocumentProjection);

      let reading = true;
      let reads_ = 0;
      const misses: string[] = [];
      const reader = (async () => {
        while (reading) {
          const c = await engine.collection(counters);
          const doc = await c.get(ids[0]);
          reads_++;
          if (!doc || doc.count < 2) misses.push(`${c.name}:${JSON.stringify(doc)}`);
          await new Promise((r) => setImmediate(r));
        }
      })();
      const report = await engine.rebuild('counters', { batchSize: 7 });
      // Events written after the switch land in the new collection.
      const late = `ctr-${randomUUID()}`;
      const p = await events.append(`c-${late}`, [ev(late)], { expectedRevision: 'no_stream' });
      await engine.runner('counters').waitFor(p.position, 10000);
      reading = false;
      await reader;

      expect(misses).toEqual([]);
      expect(reads_).toBeGreaterThan(0);
      expect(report.collection).not.toBe(before);
      expect(await engine.catalog.resolve(counters as unknown as DocumentProjection)).toBe(report.collection);
      const c = await engine.collection(counters);
      for (const id of ids) expect((await c.get(id))?.count).toBe(2);
      expect((await c.get(late))?.count).toBe(1);
      expect(await reads.collection(before).get(ids[0])).toBeNull(); // old collection dropped
      expect(report.events).toBeGreaterThanOrEqual(41);
    } finally {
      await engine.stop();
    }
  });

  it('deletes documents when the projection says so', async () => {
    const engine = new ProjectionEngine(events, reads, new ReadStoreCheckpointStore(reads), [counters as unknown as DocumentProjection]);
    await engine.start();
    try {
      const id = `ctr-${randomUUID()}`;
      await events.append(`c-${id}`, [ev(id)], { expectedRevision: 'no_stream' });
      const r = await events.append(`c-${id}`, [ev(id, 'test.CounterDeleted.v1')], { expectedRevision: 0 });
      await engine.runner('counters').waitFor(r.position, 5000);
      expect(await (await engine.collection(counters)).get(id)).toBeNull();
    } finally {
      await engine.stop();
    }
  });
});
