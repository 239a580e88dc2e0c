import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { IdempotencyStore, MemoryIdempotencyStore, RedisIdempotencyStore } from '../src';
import { call, calls, owner, SlowGate, slowGates, startApp } from './fixtures';
import { connectRedis } from './redis-helper';

let redis: Redis | undefined;
afterAll(() => redis?.disconnect());

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
