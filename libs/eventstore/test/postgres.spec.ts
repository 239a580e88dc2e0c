import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SqlEventStore } from '../src/sql/sql-event-store';
import { PgSqlClient } from '../src/sql/sql-client';
import { testEventStore } from './event-store.contract';
import { requireEngine } from '../../../test/engines';

const url = requireEngine('PG_URL');

testEventStore(
  'PostgreSQL',
  async () => {
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
  },
  { parallelStores: 4 },
);

describe('PostgreSQL tail reads', () => {
  const schema = `es_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  let store: SqlEventStore;
  let queries: string[] = [];

  beforeAll(async () => {
    const client = PgSqlClient.fromUrl(url, 4);
    const query = client.query.bind(client);
    client.query = ((sql: string, params?: unknown[]) => (queries.push(sql), query(sql, params))) as typeof client.query;
    store = await SqlEventStore.open(client, { schema });
  });
  afterAll(async () => {
    await store.dropSchema();
    await store.close();
  });

  const ev = () => ({ id: randomUUID(), type: 'test.Tail.v1', data: {}, metadata: { schemaVersion: 1 } });
  const readAlls = () => queries.filter((q) => q.includes('WHERE position >')).length;

  it('serves readers of the same range from one query, and never from one older than the last append', async () => {
    await store.append(`t-${randomUUID()}`, [ev(), ev()], { expectedRevision: 'no_stream' });
    queries = [];
    const reads = await Promise.all(Array.from({ length: 10 }, () => store.readAll({ fromPosition: 0, maxCount: 100 })));
    expect(readAlls()).toBe(1);
    for (const r of reads) expect(r.map((e) => e.position)).toEqual([1, 2]);
    // Each reader gets its own array.
    reads[0]!.pop();
    expect(reads[1]).toHaveLength(2);

    // A read that starts after an append does not join the query started before it.
    queries = [];
    const early = store.readAll({ fromPosition: 0, maxCount: 100 });
    await store.append(`t-${randomUUID()}`, [ev()], { expectedRevision: 'no_stream' });
    const late = await store.readAll({ fromPosition: 0, maxCount: 100 });
    await early;
    expect(readAlls()).toBe(2);
    expect(late.map((e) => e.position)).toEqual([1, 2, 3]);
  });
});
