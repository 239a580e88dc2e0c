/** Fixed one-minute-window rate limits (DECISIONS §4) with Redis and in-memory stores. */
import type Redis from 'ioredis';
import { rateLimited as appRateLimited } from '../../application/src/errors';
import { ApiError, unavailable } from './errors';
import { appErrorToApiError } from './to-api-error';
import type { Principal } from './auth';

/** One counter of a window and the most requests it admits. */
export interface RateLimitBucket { key: string; limit: number }

export interface RateLimitStore {
  /**
   * Counts one request in every bucket of the window starting at `windowStart` (ms), atomically and
   * only when none of them is at its limit: a refused request spends no budget (one key at its own
   * limit leaves its project's budget to the other keys). Returns each bucket's count after the
   * request (as it stands when refused) and whether the request was admitted.
   */
  take(buckets: readonly RateLimitBucket[], windowStart: number, windowMs: number): Promise<{ counts: number[]; admitted: boolean }>;
}

export interface RateLimits { perProject: number; perKey: number; perIp: number; windowMs: number }
export const DEFAULT_RATE_LIMITS: RateLimits = { perProject: 1000, perKey: 100, perIp: 100, windowMs: 60_000 };

export interface RateLimitState { limit: number; remaining: number; reset: number }

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counts = new Map<string, { count: number; expires: number }>();
  async take(buckets: readonly RateLimitBucket[], windowStart: number, windowMs: number): Promise<{ counts: number[]; admitted: boolean }> {
    const now = Date.now();
    if (this.counts.size > 10_000) for (const [k, v] of this.counts) if (v.expires <= now) this.counts.delete(k);
    const entries = buckets.map((b) => {
      const k = `${b.key}:${windowStart}`;
      const e = this.counts.get(k) ?? { count: 0, expires: windowStart + windowMs };
      this.counts.set(k, e);
      return e;
    });
    const admitted = entries.every((e, i) => e.count < buckets[i].limit);
    if (admitted) for (const e of entries) e.count += 1;
    return { counts: entries.map((e) => e.count), admitted };
  }
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`rate-limit store timed out after ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });

/**
 * KEYS: the buckets' counters; ARGV: the window's expiry (ms), then each bucket's limit. Reads every
 * counter and increments them all only if each is below its limit, in one script (atomic in Redis).
 * Answers `[admitted (1|0), count1, count2, …]`.
 */
const TAKE_SCRIPT = `
local counts = {}
local admitted = 1
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  if counts[i] >= tonumber(ARGV[i + 1]) then admitted = 0 end
end
if admitted == 1 then
  for i, key in ipairs(KEYS) do
    counts[i] = redis.call('INCR', key)
    redis.call('PEXPIRE', key, ARGV[1])
  end
end
table.insert(counts, 1, admitted)
return counts`;

/** One script per request (see TAKE_SCRIPT), one key per bucket and window. Fails (rather than queues) after `timeoutMs`. */
export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis, private readonly prefix = 'rl:', private readonly timeoutMs = 500) {}
  async take(buckets: readonly RateLimitBucket[], windowStart: number, windowMs: number): Promise<{ counts: number[]; admitted: boolean }> {
    const keys = buckets.map((b) => `${this.prefix}${b.key}:${windowStart}`);
    const reply = (await withTimeout(this.redis.eval(TAKE_SCRIPT, keys.length, ...keys, windowMs + 1000, ...buckets.map((b) => b.limit)), this.timeoutMs)) as number[];
    return { admitted: Number(reply[0]) === 1, counts: reply.slice(1).map(Number) };
  }
}

export interface RateLimitResult { state: RateLimitState; exceeded: boolean; retryAfter: number }

export class RateLimiter {
  readonly limits: RateLimits;
  constructor(
    private readonly store: RateLimitStore,
    limits: Partial<RateLimits> = {},
    private readonly onStoreError?: (e: unknown) => void,
    /** The time the windows are cut from (the runtime's clock). */
    private readonly clock: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_RATE_LIMITS, ...limits };
  }

  private buckets(principal: Principal | null, ip: string): RateLimitBucket[] {
    if (!principal) return [{ key: `ip:${ip}`, limit: this.limits.perIp }];
    if (principal.kind === 'platform-admin') return [{ key: `key:${principal.keyId}`, limit: this.limits.perKey }];
    // A signed-in member is limited like an API key (per credential holder within the project).
    const holder = principal.kind === 'project-key' ? `key:${principal.keyId}` : `member:${principal.projectId}:${principal.memberId}`;
    return [
      { key: `project:${principal.projectId}`, limit: this.limits.perProject },
      { key: holder, limit: this.limits.perKey },
    ];
  }

  /**
   * Counts one request. Returns the tightest applying limit; throws 503 UNAVAILABLE when the store
   * fails for an unauthenticated request (authenticated ones pass).
   */
  async consume(principal: Principal | null, ip: string, now = this.clock()): Promise<RateLimitResult> {
    const { windowMs } = this.limits;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const reset = Math.ceil((windowStart + windowMs) / 1000);
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    const buckets = this.buckets(principal, ip);
    let counts: number[];
    let admitted: boolean;
    try {
      ({ counts, admitted } = await this.store.take(buckets, windowStart, windowMs));
    } catch (e) {
      this.onStoreError?.(e);
      if (!principal) throw unavailable('Rate-limit store unavailable');
      const tight = buckets.reduce((a, b) => (b.limit < a.limit ? b : a));
      return { state: { limit: tight.limit, remaining: tight.limit, reset }, exceeded: false, retryAfter };
    }
    let best: RateLimitState | undefined;
    buckets.forEach((b, i) => {
      const remaining = Math.max(0, b.limit - counts[i]);
      if (!best || remaining < best.remaining || (remaining === best.remaining && b.limit < best.limit)) best = { limit: b.limit, remaining, reset };
    });
    return { state: best!, exceeded: !admitted, retryAfter };
  }
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return { 'X-RateLimit-Limit': String(s.limit), 'X-RateLimit-Remaining': String(s.remaining), 'X-RateLimit-Reset': String(s.reset) };
}

/** The limiter's 429: the same answer as a use case's RATE_LIMITED (e.g. an invitation resent too soon). */
export function rateLimited(retryAfter: number): ApiError {
  return appErrorToApiError(appRateLimited(retryAfter));
}
