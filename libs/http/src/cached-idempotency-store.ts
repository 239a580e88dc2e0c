/**
 * Redis in front of a durable idempotency store (the SQL one: the record of truth, written with the
 * events). Only answered keys are cached, and an answered record never changes until it expires, so
 * the cache can never be ahead of or disagree with the truth:
 * - `begin` reads Redis first: a hit is a replay answered without touching the database; a miss (or
 *   Redis down or slow) goes to the durable store, whose answered record is then cached for what is
 *   left of its life.
 * - `complete` writes the durable store first and caches the answer only when it was stored there
 *   (the reservation was still this request's).
 * - Reservations, in-progress keys, committed writes and their recovery are the durable store's
 *   alone. A Redis outage costs one database read per replay, never an answer: nothing is lost and
 *   nothing runs twice.
 * Cached bodies are sealed like the durable ones (an API key's create shows its secret once).
 */
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { BeginResult, IdempotencyStore, StoredResponse } from './idempotency';

export interface CachedIdempotencyStoreOptions {
  prefix?: string;
  /** A cache read slower than this counts as a miss (a stalled Redis must not stall requests). */
  timeoutMs?: number;
  seal?: { encrypt(plain: string, aad: string): string; decrypt(sealed: string, aad: string): string };
  /** Told about a failed cache read or write (logged by the caller); the request goes on. */
  onError?: (err: unknown) => void;
}

interface Cached { f: string; s: number; c?: string; b: string }

/** Expiry margin: the cached copy lapses this much before the record it copies. */
const MARGIN_MS = 1000;

export class CachedIdempotencyStore implements IdempotencyStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly durable: IdempotencyStore,
    private readonly redis: Redis,
    private readonly options: CachedIdempotencyStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'idem-answer:';
    this.timeoutMs = options.timeoutMs ?? 250;
  }

  private k(scope: string, key: string): string {
    return `${this.prefix}${scope}:${createHash('sha256').update(key).digest('hex')}`;
  }

  private aad(scope: string, key: string): string {
    return `idempotency-cache:${scope}:${key}`;
  }

  async begin(scope: string, key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const hit = await this.cached(scope, key);
    if (hit) return hit;
    const result = await this.durable.begin(scope, key, fingerprint, lockMs);
    if (result.state === 'completed' && result.ttlMs !== undefined) await this.remember(scope, key, result.fingerprint, result.response, result.ttlMs);
    return result;
  }

  async complete(scope: string, key: string, token: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<boolean | void> {
    const stored = await this.durable.complete(scope, key, token, fingerprint, response, ttlMs);
    if (stored === true) await this.remember(scope, key, fingerprint, response, ttlMs);
    return stored;
  }

  release(scope: string, key: string, token: string): Promise<void> {
    return this.durable.release(scope, key, token);
  }

  async recovered(scope: string, key: string, response: StoredResponse): Promise<StoredResponse> {
    // Cached on the next replay, which reads the record (and its remaining life) from the durable store.
    return this.durable.recovered ? this.durable.recovered(scope, key, response) : response;
  }

  private async cached(scope: string, key: string): Promise<BeginResult | null> {
    try {
      const raw = await this.bounded(this.redis.get(this.k(scope, key)));
      if (!raw) return null;
      const c = JSON.parse(raw) as Cached;
      const body = this.options.seal ? this.options.seal.decrypt(c.b, this.aad(scope, key)) : c.b;
      return { state: 'completed', fingerprint: c.f, response: { status: c.s, body, contentType: c.c } };
    } catch (e) {
      this.options.onError?.(e);
      return null;
    }
  }

  private async remember(scope: string, key: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void> {
    const px = Math.floor(ttlMs - MARGIN_MS);
    if (px <= 0) return;
    try {
      const b = this.options.seal ? this.options.seal.encrypt(response.body, this.aad(scope, key)) : response.body;
      const value: Cached = { f: fingerprint, s: response.status, c: response.contentType, b };
      await this.bounded(this.redis.set(this.k(scope, key), JSON.stringify(value), 'PX', px));
    } catch (e) {
      this.options.onError?.(e);
    }
  }

  private bounded<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    p.catch(() => undefined); // a late failure after the timeout is not unhandled
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }
}
