import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SqlEventStore } from '../src/sql/sql-event-store';
import { isConnectionFailure, PgSqlClient } from '../src/sql/sql-client';
import { TcpCutProxy } from '../../../test/support/tcp-proxy';
import { testEventStore } from './event-store.contract';
import { testAggregateStream } from './aggregate-stream.contract';
import { testSnapshots } from './snapshots.contract';
import { requireEngine } from '../../../test/engines';
import { eventually } from '../../../test/support/wait';

const url = requireEngine('PG_URL');

const postgres = async () => {
  const schema = `es_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  return {
    // Each open() is its own pool, so the race and concurrency tests use real parallel connections.
    open: () => SqlEventStore.postgres(url, { schema, poolSize: 8 }),
    cleanup: async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
};
testEventStore('PostgreSQL', postgres, { parallelStores: 4 });
testAggregateStream('PostgreSQL', postgres);
testSnapshots('PostgreSQL', postgres);

describe('PostgreSQL tail reads', () => {
  const schema = `es_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const opened: SqlEventStore[] = [];
  /** A store on the shared schema whose SQL statements are recorded (each is its own "process"). */
  async function open(pollIntervalMs = 250) {
    const queries: string[] = [];
    const client = PgSqlClient.fromUrl(url, 4);
    const query = client.query.bind(client);
    client.query = ((sql: string, params?: unknown[]) => (queries.push(sql), query(sql, params))) as typeof client.query;
    const store = await SqlEventStore.open(client, { schema, pollIntervalMs });
    opened.push(store);
    return { store, readAlls: () => queries.filter((q) => q.includes('WHERE position >')).length, streamReads: () => queries.filter((q) => q.includes('WHERE stream_id = $1')).length, reset: () => (queries.length = 0) };
  }
  afterAll(async () => {
    await opened[0]?.dropSchema();
    for (const s of opened) await s.close();
  });

  const ev = (data: Record<string, unknown> = {}) => ({ id: randomUUID(), type: 'test.Tail.v1', data, metadata: { schemaVersion: 1, actor: 'test' } });

  it('serves readers of the same range from one query, and never from one older than the last append', async () => {
    const writer = await open();
    await writer.store.append(`t-${randomUUID()}`, [ev(), ev()], { expectedRevision: 'no_stream' });
    const r = await open();
    const reads = await Promise.all(Array.from({ length: 10 }, () => r.store.readAll({ fromPosition: 0, maxCount: 100 })));
    expect(r.readAlls()).toBe(1);
    for (const x of reads) expect(x.map((e) => e.position)).toEqual([1, 2]);
    // Each reader gets its own array.
    reads[0]!.pop();
    expect(reads[1]).toHaveLength(2);

    // A read that starts after an append does not join the query started before it.
    const r2 = await open();
    const early = r2.store.readAll({ fromPosition: 0, maxCount: 100 });
    await r2.store.append(`t-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
    const late = await r2.store.readAll({ fromPosition: 0, maxCount: 100 });
    // (From the query started after it, or from the tail its own commit extended: never from `early`.)
    await early;
    expect(late.map((e) => e.position)).toEqual([1, 2, 3]);
  });

  it('reads its own recent commits from memory, exactly as the database returns them', async () => {
    const a = await open();
    const from = await a.store.headPosition();
    await a.store.append(`t-${randomUUID()}`, [ev({ n: 1, nested: { list: [1, 'two', null], flag: true }, skipped: undefined }), ev({ n: 2 })], { expectedRevision: 'no_stream' });
    await a.store.append(`t-${randomUUID()}`, [ev({ n: 3 })], { expectedRevision: 'no_stream' });
    a.reset();
    const fromMemory = await a.store.readAll({ fromPosition: from, maxCount: 100 });
    const part = await a.store.readAll({ fromPosition: from + 1, maxCount: 1 });
    expect(a.readAlls()).toBe(0);
    const fromDb = await (await open()).store.readAll({ fromPosition: from, maxCount: 100 });
    expect(fromMemory).toHaveLength(3);
    expect(fromMemory).toEqual(fromDb);
    expect(part).toEqual(fromDb.slice(1, 2));
  });

  it('reads a stream begun in the tail from memory, and goes back to the database after a lost revision check', async () => {
    const a = await open();
    const b = await open();
    const stream = `t-${randomUUID()}`;
    await a.store.append(stream, [ev({ n: 1 }), ev({ n: 2 })], { expectedRevision: 'no_stream' });
    await a.store.append(stream, [ev({ n: 3 })], { expectedRevision: 1 });
    a.reset();
    const whole = await a.store.readStream(stream);
    const tail = await a.store.readStream(stream, { fromRevision: 1, maxCount: 1 });
    expect(a.streamReads()).toBe(0);
    const fromDb = await b.store.readStream(stream);
    expect(whole).toEqual(fromDb);
    expect(tail).toEqual(fromDb.slice(1, 2));
    expect(whole.map((e) => e.data.n)).toEqual([1, 2, 3]);

    // Another process appends and `a` has not heard of it: a command deciding on the old read loses
    // its revision check, and the next read comes from the database.
    await (a.store as unknown as { unlisten: () => Promise<void> }).unlisten();
    await b.store.append(stream, [ev({ n: 4 })], { expectedRevision: 2 });
    await expect(a.store.append(stream, [ev({ n: 5 })], { expectedRevision: 2 })).rejects.toThrow();
    expect((await a.store.readStream(stream)).map((e) => e.data.n)).toEqual([1, 2, 3, 4]);
  });

  it('fetches what another process committed (told by NOTIFY) before answering, and delivers it to subscriptions', async () => {
    const a = await open();
    const b = await open();
    const start = await a.store.headPosition();
    await a.store.append(`t-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
    const seen: number[] = [];
    const sub = a.store.subscribeToAll({ fromPosition: start, batchSize: 100, onEvents: async (events) => void seen.push(...events.map((e) => e.position)) });
    try {
      const other = await b.store.append(`t-${randomUUID()}`, [ev(), ev()], { expectedRevision: 'no_stream' });
      const mine = await a.store.append(`t-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
      await eventually(async () => seen.length, (n) => n >= 4, 5000, 10);
      expect(seen).toEqual([start + 1, other.position - 1, other.position, mine.position]);
      expect((await a.store.readAll({ fromPosition: start, maxCount: 100 })).map((e) => e.position)).toEqual(seen);
    } finally {
      await sub.stop();
    }
  });

  it('asks the database at the poll cadence when caught up, so a lost NOTIFY delays events but never loses them', async () => {
    const a = await open(300);
    const b = await open();
    await a.store.append(`t-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
    const head = await a.store.headPosition();
    await (a.store as unknown as { unlisten: () => Promise<void> }).unlisten();
    const other = await b.store.append(`t-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
    const got = await eventually(async () => (await a.store.readAll({ fromPosition: head, maxCount: 100 })).map((e) => e.position), (p) => p.length > 0, 5000, 20);
    expect(got).toEqual([other.position]);
  });
});

describe('PostgreSQL blackholed (connections accepted, nothing ever answered)', () => {
  it('fails the appends waiting in the group commit once the query timeout passes, instead of holding them forever; works again once restored', async () => {
    const schema = `es_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const proxy = await TcpCutProxy.start(TcpCutProxy.targetOf(url, 5432));
    const queryTimeoutMs = 1000;
    const store = await SqlEventStore.open(PgSqlClient.fromUrl(TcpCutProxy.rewrite(url, proxy.port), 4, queryTimeoutMs), { schema });
    const ev = () => ({ id: randomUUID(), type: 'test.Blackhole.v1', data: {}, metadata: { schemaVersion: 1, actor: 'test' } });
    try {
      // Every pooled connection open and idle first: the blackhole catches them mid-life, as a network fault does.
      await Promise.all(Array.from({ length: 4 }, () => store.append(`b-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' })));
      proxy.cut('blackhole');
      // Queued behind one another in the group commit: the commit in flight fails at the query
      // timeout and fails its batch at once; the next batch waits for a checkout (5 s) or one more
      // query timeout. No timer here: appends that hang (as before the query timeout) fail the test
      // at its own timeout, and what is asserted is how they end, never how long they took.
      const appends = Array.from({ length: 8 }, () => store.append(`b-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' }));
      const outcomes = await Promise.allSettled(appends);
      const failures = outcomes.map((o) => (o.status === 'rejected' ? { failed: true, connection: isConnectionFailure(o.reason), error: String(o.reason) } : { failed: false }));
      expect(failures.filter((f) => !f.failed || !f.connection)).toEqual([]);
      proxy.restore();
      const stream = `b-${randomUUID()}`;
      await eventually(() => store.append(stream, [ev()], { expectedRevision: 'no_stream' }).then(() => true, () => false), (ok) => ok, 30_000, 200);
      expect(await store.readStream(stream)).toHaveLength(1);
    } finally {
      proxy.restore();
      await store.dropSchema().catch(() => undefined);
      await store.close();
      await proxy.close();
    }
  }, 120_000);
});
