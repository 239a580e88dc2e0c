import Redis from 'ioredis';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { CredentialCipher } from '../../providers/src/credential-cipher';
import { IdempotencyStore, MemoryIdempotencyStore, RedisIdempotencyStore } from '../src';
import { SqlIdempotencyStore } from '../src/sql-idempotency-store';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { IdempotencyKeyCommittedError } from '../../eventstore/src/event-store.port';
import { handleCommand } from '../../eventstore/src/handle-command';
import { eventually } from '../../../test/support/wait';
import { call, calls, owner, SlowGate, slowGates, startApp } from './fixtures';
import { connectRedis, deadRedis } from './redis-helper';
import { CachedIdempotencyStore } from '../src/cached-idempotency-store';
import type { SqlClient } from '../../eventstore/src/sql/sql-client';

let redis: Redis | undefined;
let pglite: SqlEventStore | undefined;
const sqlStores: SqlIdempotencyStore[] = [];
afterAll(async () => {
  redis?.disconnect();
  for (const s of sqlStores) s.stop();
  await pglite?.close();
});
async function eventStore(): Promise<SqlEventStore> {
  pglite ??= await SqlEventStore.pglite(undefined, { schema: 'idem_test' });
  return pglite;
}
async function sqlStore(options: { leaseMs?: number; start?: boolean } = {}): Promise<SqlIdempotencyStore> {
  const es = await eventStore();
  const s = new SqlIdempotencyStore(es.sqlClient, { schema: es.schemaName, leaseMs: options.leaseMs });
  if (options.start !== false) s.start();
  sqlStores.push(s);
  return s;
}

function suite(name: string, makeStore: () => Promise<IdempotencyStore>) {
  describe(`idempotency with ${name}`, () => {
    let app: Awaited<ReturnType<typeof startApp>>;
    beforeAll(async () => {
      app = await startApp({ idempotencyStore: await makeStore() });
    });
    afterAll(async () => app?.http.close());
    const post = (key: string | undefined, body: unknown, headers: Record<string, string> = owner, path = '/v1/widgets') =>
      call(`${app.url}${path}`, { method: 'POST', headers: { ...headers, ...(key === undefined ? {} : { 'Idempotency-Key': key }) }, body });

    it('replays the first response byte for byte with Idempotent-Replayed: true', async () => {
      const key = randomUUID();
      const before = calls.createWidget;
      const first = await post(key, { name: 'idem', size: 2 });
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const second = await post(key, { size: 2, name: 'idem' }); // same body, other key order
      expect(second.status).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.text).toBe(first.text);
      expect(calls.createWidget).toBe(before + 1);
      // a different project with the same key is a separate scope
      const other = await post(key, { name: 'idem', size: 2 }, { 'X-Service-API-Key': 'svc_test_other' });
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(calls.createWidget).toBe(before + 2);
      // without a key, nothing is deduplicated
      await post(undefined, { name: 'idem', size: 2 });
      await post(undefined, { name: 'idem', size: 2 });
      expect(calls.createWidget).toBe(before + 4);
    });

    it('same key, different body → 422 IDEMPOTENCY_KEY_REUSED (also on another path)', async () => {
      const key = randomUUID();
      expect((await post(key, { name: 'a' })).status).toBe(201);
      const r = await post(key, { name: 'b' });
      expect(r.status).toBe(422);
      expect(r.json.errors[0]).toMatchObject({ status: '422', code: 'IDEMPOTENCY_KEY_REUSED' });
      expect((await post(key, { name: 'a' }, owner, '/v1/api-keys')).status).toBe(422);
    });

    it('same key while the first is still running → 409 IDEMPOTENCY_IN_PROGRESS', async () => {
      const key = randomUUID();
      const gate = new SlowGate();
      slowGates.push(gate);
      const slow = post(key, { name: 'slow' });
      await gate.entered; // the first request holds the key and is inside its handler
      const r = await post(key, { name: 'slow' });
      gate.release();
      expect(r.status).toBe(409);
      expect(r.json.errors[0]).toMatchObject({ status: '409', code: 'IDEMPOTENCY_IN_PROGRESS' });
      const first = await slow;
      expect(first.status).toBe(201);
      const replay = await post(key, { name: 'slow' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(first.text);
    });

    it('releases the key after a 5xx so a retry runs; stores and replays 4xx', async () => {
      const key = randomUUID();
      const before = calls.createWidget;
      expect((await post(key, { name: 'boom' })).status).toBe(500);
      expect((await post(key, { name: 'boom' })).status).toBe(500);
      expect(calls.createWidget).toBe(before + 2);
      const k4 = randomUUID();
      const c1 = await post(k4, { name: 'taken' });
      expect(c1.status).toBe(409);
      const c2 = await post(k4, { name: 'taken' });
      expect(c2.status).toBe(409);
      expect(c2.headers['idempotent-replayed']).toBe('true');
      expect(c2.text).toBe(c1.text);
      expect(calls.createWidget).toBe(before + 3);
    });

    it('rejects keys longer than 255 characters with 400', async () => {
      const r = await post('k'.repeat(256), { name: 'x' });
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { header: 'Idempotency-Key' } });
      expect((await post('k'.repeat(255), { name: 'x' })).status).toBe(201);
    });
  });
}

suite('MemoryIdempotencyStore', async () => new MemoryIdempotencyStore());
suite('RedisIdempotencyStore', async () => {
  redis ??= await connectRedis();
  return new RedisIdempotencyStore(redis, `idem:test:${randomUUID()}:`);
});
suite('SqlIdempotencyStore (PGlite)', () => sqlStore());
suite('CachedIdempotencyStore (Redis in front of the SQL records)', async () => {
  redis ??= await connectRedis();
  return new CachedIdempotencyStore(await sqlStore(), redis, { prefix: `idem-answer:test:${randomUUID()}:` });
});
suite('CachedIdempotencyStore with Redis down', async () => new CachedIdempotencyStore(await sqlStore(), deadRedis()));

/** The event store's SQL client, counting the statements and transactions that reach the database. */
function counting(sql: SqlClient): { client: SqlClient; count: () => number } {
  let n = 0;
  const client = new Proxy(sql, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if ((prop === 'query' || prop === 'transaction') && typeof v === 'function') {
        return (...args: unknown[]) => {
          n++;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return v;
    },
  });
  return { client, count: () => n };
}

describe('CachedIdempotencyStore: Redis answers replays, the SQL record stays the truth', () => {
  const fp = 'c'.repeat(64);
  const prefix = `idem-answer:cache-test:${randomUUID()}:`;
  const cipher = new CredentialCipher(randomBytes(32));
  async function stores(r?: Redis) {
    redis ??= await connectRedis();
    const es = await eventStore();
    const db = counting(es.sqlClient);
    const sql = new SqlIdempotencyStore(db.client, { schema: es.schemaName, seal: cipher }).start();
    sqlStores.push(sql);
    return { sql, db, cached: new CachedIdempotencyStore(sql, r ?? redis, { prefix, seal: cipher }) };
  }
  const cacheKey = (scope: string, key: string) => `${prefix}${scope}:${createHash('sha256').update(key).digest('hex')}`;
  const secretBody = '{"data":{"attributes":{"key":"svc_live_cachedsecret"}}}';

  it('answers a replay from Redis with no database statement, sealed there, for no longer than the record lives', async () => {
    const { cached, db } = await stores();
    const key = randomUUID();
    const begun = await cached.begin('project:c1', key, fp, 60_000);
    if (begun.state !== 'acquired') throw new Error('not acquired');
    await cached.complete('project:c1', key, begun.token, fp, { status: 201, body: secretBody, contentType: 'application/json' }, 60_000);
    const before = db.count();
    const replay = await cached.begin('project:c1', key, fp, 60_000);
    expect(replay).toEqual({ state: 'completed', fingerprint: fp, response: { status: 201, body: secretBody, contentType: 'application/json' } });
    expect(db.count()).toBe(before); // answered without reading the database
    const raw = await redis!.get(cacheKey('project:c1', key));
    expect(raw).not.toBeNull();
    expect(raw).not.toContain('cachedsecret');
    const pttl = await redis!.pttl(cacheKey('project:c1', key));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(59_000); // lapses before the SQL record (60 s) does
  });

  it('caches only what the SQL store took: a stale token stores nothing anywhere; an uncached record is read once, then cached', async () => {
    const { cached, sql, db } = await stores();
    const key = randomUUID();
    const begun = await cached.begin('project:c2', key, fp, 60_000);
    if (begun.state !== 'acquired') throw new Error('not acquired');
    expect(await cached.complete('project:c2', key, 'not-the-token', fp, { status: 201, body: '{}' }, 60_000)).toBe(false);
    expect(await redis!.exists(cacheKey('project:c2', key))).toBe(0);
    expect((await cached.begin('project:c2', key, fp, 60_000)).state).toBe('in-progress');
    // Answered through the SQL store alone (e.g. by a node whose Redis was down): the first replay reads it and caches it.
    expect(await sql.complete('project:c2', key, begun.token, fp, { status: 201, body: '{"ok":2}' }, 60_000)).toBe(true);
    const first = await cached.begin('project:c2', key, fp, 60_000);
    expect(first).toMatchObject({ state: 'completed', response: { status: 201, body: '{"ok":2}' } });
    const before = db.count();
    expect(await cached.begin('project:c2', key, fp, 60_000)).toMatchObject({ state: 'completed', response: { body: '{"ok":2}' } });
    expect(db.count()).toBe(before);
  });

  it('Redis down: every answer comes from the SQL records; nothing is lost, nothing runs twice', async () => {
    const up = await stores();
    const down = await stores(deadRedis());
    const key = randomUUID();
    // Two nodes race for one key, one of them without Redis: exactly one runs.
    const begins = await Promise.all([up.cached.begin('project:c3', key, fp, 60_000), down.cached.begin('project:c3', key, fp, 60_000)]);
    expect(begins.filter((b) => b.state === 'acquired')).toHaveLength(1);
    const winner = begins.find((b) => b.state === 'acquired')!;
    if (winner.state !== 'acquired') throw new Error('unreachable');
    // Answered by the node without Redis: stored in SQL, so the other node replays it (and caches it).
    await down.cached.complete('project:c3', key, winner.token, fp, { status: 202, body: '{"job":1}' }, 60_000);
    expect(await up.cached.begin('project:c3', key, fp, 60_000)).toMatchObject({ state: 'completed', response: { status: 202, body: '{"job":1}' } });
    expect(await down.cached.begin('project:c3', key, fp, 60_000)).toMatchObject({ state: 'completed', response: { status: 202, body: '{"job":1}' } });
    // Another body with the key is still told apart (422 by the pipeline) from the cache and from SQL alike.
    expect(await up.cached.begin('project:c3', key, 'd'.repeat(64), 60_000)).toMatchObject({ state: 'completed', fingerprint: fp });
    expect(await down.cached.begin('project:c3', key, 'd'.repeat(64), 60_000)).toMatchObject({ state: 'completed', fingerprint: fp });
  });

  it('a Redis that accepts connections but never answers costs at most the read timeout, then the SQL record answers', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => void sockets.push(s)); // reads nothing, answers nothing
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const stalled = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, enableOfflineQueue: true, retryStrategy: () => null });
    stalled.on('error', () => undefined);
    try {
      const { sql } = await stores();
      const cached = new CachedIdempotencyStore(sql, stalled, { prefix, seal: cipher, timeoutMs: 100 });
      const key = randomUUID();
      const begun = await cached.begin('project:c4', key, fp, 60_000);
      if (begun.state !== 'acquired') throw new Error('not acquired');
      await cached.complete('project:c4', key, begun.token, fp, { status: 201, body: '{"ok":4}' }, 60_000);
      expect(await cached.begin('project:c4', key, fp, 60_000)).toMatchObject({ state: 'completed', response: { body: '{"ok":4}' } });
    } finally {
      stalled.disconnect();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});

describe('SqlIdempotencyStore: the record and the write survive together', () => {
  const ev = (type: string) => [{ id: randomUUID(), type, data: {}, metadata: { schemaVersion: 1 } }];
  const fp = 'f'.repeat(64);

  it('concurrent begins with one key: exactly one acquires, the others see it in progress', async () => {
    const stores = [await sqlStore(), await sqlStore()];
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2].begin('project:p1', key, fp, 60_000)));
    expect(results.filter((r) => r.state === 'acquired')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'in-progress')).toHaveLength(19);
  });

  it('a reservation whose process died (lease not renewed) frees the key; a live process keeps it', async () => {
    const dead = await sqlStore({ leaseMs: 200, start: false }); // never renews: as after a SIGKILL
    const other = await sqlStore({ leaseMs: 200 });
    const key = randomUUID();
    expect((await dead.begin('project:p1', key, fp, 60_000)).state).toBe('acquired');
    expect((await other.begin('project:p1', key, fp, 60_000)).state).toBe('in-progress');
    const next = await eventually(() => other.begin('project:p1', key, fp, 60_000), (r) => r.state !== 'in-progress', 10_000, 20);
    expect(next.state).toBe('acquired');
    // `other` is alive and renews its lease: a third process keeps seeing the key in progress after several lease periods.
    const third = await sqlStore({ leaseMs: 200 });
    const es = await eventStore();
    const renewed = () => es.sqlClient.query<{ n: number }>(`SELECT (extract(epoch FROM lease_until - created_at) * 1000)::int AS n FROM "idem_test".idempotency WHERE key = $1`, [key]);
    await eventually(renewed, (r) => r[0]?.n > 600, 10_000, 20);
    expect((await third.begin('project:p1', key, fp, 60_000)).state).toBe('in-progress');
  });

  it('the append marks the key committed in its transaction; another request cannot write it again; a retry gets the recovered answer', async () => {
    const es = await eventStore();
    const crashed = await sqlStore({ leaseMs: 100, start: false });
    const key = randomUUID();
    const begun = await crashed.begin('project:p1', key, fp, 60_000);
    expect(begun.state).toBe('acquired');
    const stream = `widget-${randomUUID()}`;
    const r = await es.append(stream, ev('w.Created'), { expectedRevision: 'no_stream', idempotency: { scope: 'project:p1', key, requestId: 'req-1' } });
    // ... and the process dies before it answers (no complete). The same request may append again.
    await es.append(stream, ev('w.Renamed'), { expectedRevision: 0, idempotency: { scope: 'project:p1', key, requestId: 'req-1' } });
    // Another request with the key (a retry that ran before the reservation was seen) is refused, nothing written.
    const other = `widget-${randomUUID()}`;
    await expect(es.append(other, ev('w.Created'), { expectedRevision: 'no_stream', idempotency: { scope: 'project:p1', key, requestId: 'req-2' } })).rejects.toBeInstanceOf(IdempotencyKeyCommittedError);
    expect(await es.readStream(other)).toEqual([]);
    // A committed reservation does not lapse with its lease: the retry is told what was written, rebuilds
    // the answer (the pipeline, through the route) and stores it; the first stored answer wins.
    const retry = await (await sqlStore()).begin('project:p1', key, fp, 60_000);
    expect(retry).toEqual({ state: 'committed', fingerprint: fp, write: { scope: 'project:p1', key, requestId: 'req-1', streamId: stream, position: r.position + 1 } });
    const rebuilt = { status: 201, body: '{"data":{"id":"w1"}}', contentType: 'application/json; charset=utf-8' };
    expect(await (await sqlStore()).recovered('project:p1', key, rebuilt)).toEqual(rebuilt);
    expect(await (await sqlStore()).recovered('project:p1', key, { status: 200, body: '{}' })).toEqual(rebuilt); // a racing retry replays the first
    const again = await (await sqlStore()).begin('project:p1', key, fp, 60_000);
    expect(again).toEqual({ state: 'completed', fingerprint: fp, response: rebuilt, ttlMs: expect.any(Number) }); // stored: byte for byte
    // The same key with another body is still the other request's.
    const mismatch = await (await sqlStore()).begin('project:p1', key, 'e'.repeat(64), 60_000);
    expect(mismatch.state !== 'acquired' && mismatch.fingerprint).toBe(fp); // answered 422 by the pipeline
  });

  it('a write committed and answered replays the answer; release never frees a key that wrote; handleCommand carries the key', async () => {
    const es = await eventStore();
    const store = await sqlStore();
    const key = randomUUID();
    const begun = await store.begin('project:p9', key, fp, 60_000);
    if (begun.state !== 'acquired') throw new Error('not acquired');
    const decider = { initialState: () => 0, evolve: (s: number) => s + 1, decide: () => [{ type: 'w.Created', data: {} }] };
    const ctx = { metadata: { projectId: 'p9', requestId: 'req-9', idempotencyKey: key } };
    const stream = `widget-${randomUUID()}`;
    await handleCommand(es, stream, decider as never, {}, ctx);
    await store.release('project:p9', key, begun.token); // a 5xx after the write: the key stays taken
    const [row] = await es.sqlClient.query<{ state: string; stream_id: string }>(`SELECT state, stream_id FROM "idem_test".idempotency WHERE key = $1`, [key]);
    expect(row).toEqual({ state: 'committed', stream_id: stream });
    await store.complete('project:p9', key, begun.token, fp, { status: 201, body: '{"ok":1}' }, 60_000);
    const replay = await store.begin('project:p9', key, fp, 60_000);
    expect(replay).toMatchObject({ state: 'completed', response: { status: 201, body: '{"ok":1}' } });
    // A second command with the key from another request: refused, nothing written.
    const second = `widget-${randomUUID()}`;
    await expect(handleCommand(es, second, decider as never, {}, { metadata: { ...ctx.metadata, requestId: 'req-10' } })).rejects.toBeInstanceOf(IdempotencyKeyCommittedError);
    expect(await es.readStream(second)).toEqual([]);
    // Saga work (a causation) and appends without a reservation row are untouched.
    await handleCommand(es, `widget-${randomUUID()}`, decider as never, {}, { metadata: { ...ctx.metadata, requestId: 'req-11', causationId: 'e1' } });
    await handleCommand(es, `widget-${randomUUID()}`, decider as never, {}, { metadata: { ...ctx.metadata, requestId: 'req-12', idempotencyKey: randomUUID() } });
  });

  it('seals stored answers at rest (a create may show a secret once) and replays them in the clear', async () => {
    const es = await eventStore();
    const cipher = new CredentialCipher(randomBytes(32));
    const store = new SqlIdempotencyStore(es.sqlClient, { schema: es.schemaName, seal: cipher }).start();
    sqlStores.push(store);
    const key = randomUUID();
    const begun = await store.begin('project:p7', key, fp, 60_000);
    if (begun.state !== 'acquired') throw new Error('not acquired');
    const body = '{"data":{"attributes":{"password":"hunter2-secret"}}}';
    await store.complete('project:p7', key, begun.token, fp, { status: 202, body }, 60_000);
    const [row] = await es.sqlClient.query<{ body: string }>(`SELECT body FROM "idem_test".idempotency WHERE key = $1`, [key]);
    expect(row.body).not.toContain('hunter2');
    expect(row.body).toMatch(/^v1\./);
    expect(await store.begin('project:p7', key, fp, 60_000)).toMatchObject({ state: 'completed', response: { status: 202, body } });
  });
});
