/**
 * Runs the ReadStore contract against a real MongoDB-compatible server (FerretDB v1.24 in CI/dev:
 * `bash scripts/engines.sh up mongo`). Fails loudly - never skips - when MONGO_URL is unreachable.
 */
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { benchWrite } from '../../../bench/bench-write';
import { MongoReadStore } from '../src/mongo-read-store';
import { testReadStore } from './read-store.contract';

const MONGO_URL = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:57017/cloud';
const SHOWN_URL = MONGO_URL.replace(/\/\/[^@/]*@/, '//***@');

async function connectOrExplain(dbName: string): Promise<MongoReadStore> {
  try {
    return await MongoReadStore.connect(MONGO_URL, dbName);
  } catch (err) {
    throw new Error(
      `MongoDB/FerretDB is not reachable at MONGO_URL=${SHOWN_URL}${process.env.MONGO_URL ? '' : ' (default; MONGO_URL is not set)'}. ` +
        `Start it with "bash scripts/engines.sh up mongo" or point MONGO_URL at a server. Cause: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

const freshDbName = () => `rs_test_${randomBytes(5).toString('hex')}`;

testReadStore('MongoReadStore', async () => {
  const store = await connectOrExplain(freshDbName());
  return {
    store,
    cleanup: async () => {
      try {
        await store.dropDatabase();
      } finally {
        await store.close();
      }
    },
  };
});

describe('MongoReadStore (adapter specifics)', () => {
  let store: MongoReadStore;
  let raw: MongoClient;
  const dbName = freshDbName();

  beforeAll(async () => {
    store = await connectOrExplain(dbName);
    raw = new MongoClient(MONGO_URL, { serverSelectionTimeoutMS: 5000 });
    await raw.connect();
  });

  afterAll(async () => {
    await store?.dropDatabase().catch(() => undefined);
    await store?.close();
    await raw?.close();
  });

  it('stores id as _id (no id field) and meta in _meta', async () => {
    const c = store.collection('shape');
    await c.write([{ kind: 'put', doc: { id: 'vm-1', _position: 3, name: 'web' } }]);
    const docs = await raw.db(dbName).collection('shape').find({}).toArray();
    expect(docs).toEqual([{ _id: 'vm-1', _position: 3, name: 'web' }]);
    await store.setMeta('checkpoint', { position: 9 });
    expect(await raw.db(dbName).collection('_meta').findOne({ _id: 'checkpoint' as never })).toEqual({ _id: 'checkpoint', value: { position: 9 } });
  });

  it('creates the requested indexes', async () => {
    const c = store.collection('indexed');
    await c.ensureIndexes([
      { fields: [{ field: 'email', direction: 1 }], unique: true },
      { fields: [{ field: 'tenant', direction: 1 }, { field: 'createdAt', direction: -1 }] },
    ]);
    const idx = await raw.db(dbName).collection('indexed').indexes();
    const byName = new Map(idx.map((i) => [i.name, i]));
    expect(byName.get('email_1')).toMatchObject({ key: { email: 1 }, unique: true });
    expect(byName.get('tenant_1_createdAt_-1')).toMatchObject({ key: { tenant: 1, createdAt: -1 } });
  });

  it('builds every list index on MongoDB; on FerretDB v1, which sorts without indexes, one per leading field (unique ones always)', async () => {
    const c = store.collection('lists');
    const by = (field: string, direction: 1 | -1 = 1) => ({ field, direction });
    await c.ensureIndexes([
      { fields: [by('projectId'), by('createdAt', -1), by('id')] },
      { fields: [by('projectId'), by('createdAt'), by('id')] },
      { fields: [by('status'), by('dueAt'), by('id')] },
      { fields: [by('projectId'), by('email')], unique: true },
    ]);
    await c.ensureIndexes([{ fields: [by('projectId'), by('name'), by('id')] }]); // a later start adding one
    const names = (await raw.db(dbName).collection('lists').indexes()).map((i) => i.name).sort();
    const all = ['_id_', 'projectId_1_createdAt_-1__id_1', 'projectId_1_createdAt_1__id_1', 'projectId_1_email_1', 'projectId_1_name_1__id_1', 'status_1_dueAt_1__id_1'];
    expect(names).toEqual(store.server.startsWith('ferretdb v1') ? ['_id_', 'projectId_1_createdAt_-1__id_1', 'projectId_1_email_1', 'status_1_dueAt_1__id_1'] : all);
  });

  it('connect() names the URL when the server is unreachable', async () => {
    await expect(MongoReadStore.connect('mongodb://127.0.0.1:1/x', undefined, { serverSelectionTimeoutMS: 300 })).rejects.toThrow(/cannot reach MongoDB at mongodb:\/\/127\.0\.0\.1:1\/x/);
  });

  it('benchWrite writes and drops its collection', async () => {
    const r = await benchWrite(store, 1000);
    expect(r.docsPerSec).toBeGreaterThan(0);
    const names = (await raw.db(dbName).listCollections().toArray()).map((x) => x.name);
    expect(names.filter((n) => n.startsWith('bench_write_'))).toEqual([]);
  });
});

describe('MongoReadStore on this server', () => {
  it('identifies the server and, on FerretDB v1, looks ids up one by one instead of with $in', async () => {
    const store = await connectOrExplain(freshDbName());
    try {
      expect(store.server).toMatch(/^(ferretdb v\d|mongodb \d)/);
      const c = store.collection<{ id: string; _position: number; n: number }>('lookups');
      await c.write(Array.from({ length: 30 }, (_, i) => ({ kind: 'put' as const, doc: { id: `d${i}`, _position: i, n: i }, isNew: true })));
      const got = await c.getMany(['d29', 'd3', 'nope', 'd3', 'd17']);
      expect(got.map((d) => d.n)).toEqual([29, 3, 17]);
    } finally {
      await store.dropDatabase();
      await store.close();
    }
  });
});

describe('WriteGate', () => {
  it('runs at most `width` writes at once, in arrival order, and survives a failed write', async () => {
    const { WriteGate } = await import('../src/mongo-read-store');
    const gate = new WriteGate(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number, fail = false) =>
      gate.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (fail) throw new Error(`write ${i} failed`);
        return i;
      });
    const results = await Promise.allSettled([task(0), task(1, true), task(2), task(3), task(4)]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  });
});
