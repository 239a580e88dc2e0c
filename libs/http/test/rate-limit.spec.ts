import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { MemoryRateLimitStore, RateLimiter, RateLimitStore, RedisRateLimitStore } from '../src';
import { call, startApp } from './fixtures';
import { connectRedis, deadRedis } from './redis-helper';

const LIMITS = { perIp: 5, perKey: 4, perProject: 6 };
const WINDOW_MS = 60_000;

function suite(name: string, makeStore: () => Promise<RateLimitStore>) {
  describe(`rate limits with ${name}`, () => {
    let app: Awaited<ReturnType<typeof startApp>>;
    // The windows are fixed minutes of the limiter's clock: each test counts one second into a
    // fresh window of its own, whatever the wall clock says.
    let window = Math.floor(Date.UTC(2030, 0, 1) / WINDOW_MS);
    let now = 0;
    beforeAll(async () => {
      app = await startApp({ rateLimiter: new RateLimiter(await makeStore(), LIMITS, undefined, () => now) });
    });
    afterAll(async () => app?.http.close());
    beforeEach(() => {
      now = ++window * WINDOW_MS + 1_000;
    });

    it('sends X-RateLimit-* on every response and 429 with Retry-After = meta.retryAfter per IP', async () => {
      const seen: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await call(`${app.url}/v1/public/ping`);
        expect(r.status).toBe(200);
        expect(r.headers['x-ratelimit-limit']).toBe('5');
        seen.push(Number(r.headers['x-ratelimit-remaining']));
        // The end of the window, in epoch seconds.
        expect(Number(r.headers['x-ratelimit-reset'])).toBe(((window + 1) * WINDOW_MS) / 1000);
      }
      expect(seen).toEqual([4, 3, 2, 1, 0]);
      // invalid credentials count as unauthenticated (per IP), and 404s carry the headers too
      const bad = await call(`${app.url}/nope`, { headers: { 'X-Service-API-Key': 'svc_test_wrong' } });
      expect(bad.status).toBe(429);
      expect(bad.headers['x-ratelimit-remaining']).toBe('0');
      expect(bad.json.errors[0]).toMatchObject({ status: '429', code: 'RATE_LIMITED' });
      // Seconds left in the window (the request came one second into it).
      expect(bad.headers['retry-after']).toBe('59');
      expect(bad.json.meta.retryAfter).toBe(59);
    });

    it('authenticated requests use the per-key limit (tightest) and then the per-project limit', async () => {
      const k1 = { 'X-Service-API-Key': 'svc_test_owner' };
      const k2 = { 'X-Service-API-Key': 'svc_test_owner2' };
      for (let i = 0; i < 4; i++) {
        const r = await call(`${app.url}/v1/widgets?limit=1`, { headers: k1 });
        expect(r.status).toBe(200);
        expect(r.headers['x-ratelimit-limit']).toBe('4');
        expect(r.headers['x-ratelimit-remaining']).toBe(String(3 - i));
      }
      expect((await call(`${app.url}/v1/widgets?limit=1`, { headers: k1 })).status).toBe(429);
      // same project (6/min): 4 used by k1 (its refused request spent nothing), k2 gets two, then the project limit bites
      expect((await call(`${app.url}/v1/widgets?limit=1`, { headers: k2 })).headers['x-ratelimit-remaining']).toBe('1');
      const a = await call(`${app.url}/v1/widgets?limit=1`, { headers: k2 });
      expect(a.status).toBe(200);
      expect(a.headers['x-ratelimit-limit']).toBe('6');
      expect(a.headers['x-ratelimit-remaining']).toBe('0');
      const b = await call(`${app.url}/v1/widgets?limit=1`, { headers: k2 });
      expect(b.status).toBe(429);
      expect(b.headers['retry-after']).toBe(String(b.json.meta.retryAfter));
      // another project is unaffected
      expect((await call(`${app.url}/v1/widgets?limit=1`, { headers: { 'X-Service-API-Key': 'svc_test_other' } })).status).toBe(200);
    });

    it("a request refused by its key's limit spends none of the project's budget: one key cannot lock the others out", async () => {
      const k1 = { 'X-Service-API-Key': 'svc_test_owner' };
      const k2 = { 'X-Service-API-Key': 'svc_test_owner2' };
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await call(`${app.url}/v1/widgets?limit=1`, { headers: k1 })).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(16);
      // The project (6/min) has spent 4: the other key gets the 2 left, then the project's limit answers.
      const other: number[] = [];
      for (let i = 0; i < 3; i++) other.push((await call(`${app.url}/v1/widgets?limit=1`, { headers: k2 })).status);
      expect(other).toEqual([200, 200, 429]);
    });

    it('concurrent requests are admitted exactly up to the limit (the check and the count are one step)', async () => {
      const k1 = { 'X-Service-API-Key': 'svc_test_owner' };
      const statuses = await Promise.all(Array.from({ length: 12 }, () => call(`${app.url}/v1/widgets?limit=1`, { headers: k1 }).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(8);
    });
  });
}

suite('MemoryRateLimitStore', async () => new MemoryRateLimitStore());

let redis: Redis | undefined;
suite('RedisRateLimitStore', async () => {
  redis = await connectRedis();
  return new RedisRateLimitStore(redis, `rl:test:${randomUUID()}:`);
});
afterAll(() => redis?.disconnect());

describe('rate-limit store down', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  const dead = deadRedis();
  beforeAll(async () => {
    app = await startApp({ rateLimiter: new RateLimiter(new RedisRateLimitStore(dead, 'rl:', 300), LIMITS) });
  });
  afterAll(async () => {
    dead.disconnect();
    await app?.http.close();
  });

  it('lets authenticated requests through and answers unauthenticated ones 503 UNAVAILABLE', async () => {
    const ok = await call(`${app.url}/v1/widgets?limit=1`, { headers: { 'X-Service-API-Key': 'svc_test_owner' } });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-ratelimit-limit']).toBe('4');
    const anon = await call(`${app.url}/v1/public/ping`);
    expect(anon.status).toBe(503);
    expect(anon.json.errors[0]).toMatchObject({ status: '503', code: 'UNAVAILABLE' });
    const invalid = await call(`${app.url}/v1/widgets`, { headers: { 'X-Service-API-Key': 'svc_test_bogus' } });
    expect(invalid.status).toBe(503);
  });
});
