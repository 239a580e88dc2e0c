/** Fixed one-minute-window rate limits (DECISIONS §4) with Redis and in-memory stores. */
import type Redis from 'ioredis';
import { rateLimited as appRateLimited } from '../../application/src/errors';
import { ApiError, unavailable } from './errors';
import { appErrorToApiError } from './to-api-error';
import type { Principal } from './auth';

export interface RateLimitStore {
  /** Increments the counter of `key` in the window starting at `windowStart` (ms); returns the new count. */
  hit(key: string, windowStart: number, windowMs: number): Promise<number>;
}

export interface RateLimits { perProject: number; perKey: number; perIp: number; windowMs: number }
export const DEFAULT_RATE_LIMITS: RateLimits = { perProject: 1000, perKey: 100, perIp: 100, windowMs: 60_000 };

export interface RateLimitState { limit: number; remaining: number; reset: number }

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counts = new Map<string, { count: number; expires: number }>();
  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const now = Date.now();
    if (this.counts.size > 10_000) for (const [k, v] of this.counts) if (v.expires <= now) this.counts.delete(k);
    const k = `${key}:${windowStart}`;
    const e = this.counts.get(k) ?? { count: 0, expires: windowStart + windowMs };
    e.count += 1;
    this.counts.set(k, e);
    return e.count;
  }
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`rate-limit store timed out after ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });

/** INCR + PEXPIRE in one MULTI, one key per window. Fails (rather than queues) after `timeoutMs`. */
export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis, private readonly prefix = 'rl:', private readonly timeoutMs = 500) {}
  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const k = `${this.prefix}${key}:${windowStart}`;
    const res = await withTimeout(this.redis.multi().incr(k).pexpire(k, windowMs + 1000).exec(), this.timeoutMs);
    const [err, count] = res?.[0] ?? [new Error('empty MULTI reply'), null];
    if (err) throw err;
    return Number(count);
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

  private buckets(principal: Principal | null, ip: string): { key: string; limit: number }[] {
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
    try {
      counts = await Promise.all(buckets.map((b) => this.store.hit(b.key, windowStart, windowMs)));
    } catch (e) {
      this.onStoreError?.(e);
      if (!principal) throw unavailable('Rate-limit store unavailable');
      const tight = buckets.reduce((a, b) => (b.limit < a.limit ? b : a));
      return { state: { limit: tight.limit, remaining: tight.limit, reset }, exceeded: false, retryAfter };
    }
    let best: RateLimitState | undefined;
    let exceeded = false;
    buckets.forEach((b, i) => {
      const remaining = Math.max(0, b.limit - counts[i]);
      if (counts[i] > b.limit) exceeded = true;
      if (!best || remaining < best.remaining || (remaining === best.remaining && b.limit < best.limit)) best = { limit: b.limit, remaining, reset };
    });
    return { state: best!, exceeded, retryAfter };
  }
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return { 'X-RateLimit-Limit': String(s.limit), 'X-RateLimit-Remaining': String(s.remaining), 'X-RateLimit-Reset': String(s.reset) };
}

/** The limiter's 429: the same answer as a use case's RATE_LIMITED (e.g. an invitation resent too soon). */
export function rateLimited(retryAfter: number): ApiError {
  return appErrorToApiError(appRateLimited(retryAfter));
}
