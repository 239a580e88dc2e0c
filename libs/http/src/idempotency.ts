/** Idempotency-Key (DECISIONS §5): per-scope records, 24 h, replay / reuse / in-progress. */
import { createHash, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

export interface StoredResponse { status: number; body: string; contentType?: string }

/** A write committed under a key whose response was never stored (the process died between the two). */
export interface CommittedWrite {
  scope: string;
  key: string;
  /** The request that wrote (its events carry it as `metadata.requestId`). */
  requestId: string | null;
  /** The first stream the request appended to under the key, and the position of its last event. */
  streamId: string;
  position: number;
}

export type BeginResult =
  | { state: 'acquired'; token: string }
  | { state: 'in-progress'; fingerprint: string }
  /** `ttlMs`: how long the record still lives, where the store knows it (what a cache in front may keep it for). */
  | { state: 'completed'; fingerprint: string; response: StoredResponse; ttlMs?: number }
  /** Written, never answered: the caller rebuilds the answer (the route's `recover`) and stores it with `recovered`. */
  | { state: 'committed'; fingerprint: string; write: CommittedWrite };

export interface IdempotencyStore {
  /** Atomically takes the key for a first attempt, or reports what is already there. */
  begin(scope: string, key: string, fingerprint: string, lockMs: number): Promise<BeginResult>;
  /** Stores the first attempt's response for `ttlMs`; true when stored (false: the reservation was no longer this token's), where the store can tell. */
  complete(scope: string, key: string, token: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<boolean | void>;
  /** Frees the key after a failed (5xx / thrown) first attempt so that a retry can run. */
  release(scope: string, key: string, token: string): Promise<void>;
  /**
   * Stores the answer rebuilt for a `committed` key, unless another retry stored one first: returns
   * the answer every retry replays from then on. Only stores that report `committed` need it.
   */
  recovered?(scope: string, key: string, response: StoredResponse): Promise<StoredResponse>;
}

/** The answer of a write whose own answer was lost, when its route cannot rebuild it: what was written, where. */
export function genericRecoveredResponse(w: CommittedWrite): StoredResponse {
  return {
    status: 200,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({
      meta: {
        idempotentRecovery: {
          detail: 'The request with this Idempotency-Key was carried out, but the service stopped before it answered',
          stream: w.streamId,
          position: w.position,
        },
      },
    }),
  };
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** JSON with object keys sorted, so that key order does not change the fingerprint. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`).digest('hex');
}

type Rec = { state: 'in-progress'; fingerprint: string; token: string; expires: number } | { state: 'completed'; fingerprint: string; response: StoredResponse; expires: number };

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly recs = new Map<string, Rec>();
  private get(k: string): Rec | undefined {
    const r = this.recs.get(k);
    if (r && r.expires <= Date.now()) { this.recs.delete(k); return undefined; }
    return r;
  }
  async begin(scope: string, key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const k = `${scope}\u0000${key}`;
    const r = this.get(k);
    if (!r) {
      const token = randomUUID();
      this.recs.set(k, { state: 'in-progress', fingerprint, token, expires: Date.now() + lockMs });
      return { state: 'acquired', token };
    }
    return r.state === 'completed' ? { state: 'completed', fingerprint: r.fingerprint, response: r.response } : { state: 'in-progress', fingerprint: r.fingerprint };
  }
  async complete(scope: string, key: string, token: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void> {
    const k = `${scope}\u0000${key}`;
    const r = this.get(k);
    if (r?.state === 'in-progress' && r.token === token) this.recs.set(k, { state: 'completed', fingerprint, response, expires: Date.now() + ttlMs });
  }
  async release(scope: string, key: string, token: string): Promise<void> {
    const k = `${scope}\u0000${key}`;
    const r = this.get(k);
    if (r?.state === 'in-progress' && r.token === token) this.recs.delete(k);
  }
}

const RELEASE = `local v = redis.call('GET', KEYS[1]) if v and cjson.decode(v).token == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const COMPLETE = `local v = redis.call('GET', KEYS[1]) if v and cjson.decode(v).token == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end return 0`;

/** `SET NX PX` for the in-progress lock, then the response replaces it (token-checked, Lua). */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: Redis, private readonly prefix = 'idem:') {}
  private k(scope: string, key: string): string {
    return `${this.prefix}${scope}:${createHash('sha256').update(key).digest('hex')}`;
  }
  async begin(scope: string, key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const k = this.k(scope, key);
    for (let i = 0; i < 3; i++) {
      const token = randomUUID();
      const ok = await this.redis.set(k, JSON.stringify({ state: 'in-progress', fingerprint, token }), 'PX', lockMs, 'NX');
      if (ok === 'OK') return { state: 'acquired', token };
      const raw = await this.redis.get(k);
      if (!raw) continue; // expired or released in between: try again
      const r = JSON.parse(raw) as Rec;
      return r.state === 'completed' ? { state: 'completed', fingerprint: r.fingerprint, response: r.response } : { state: 'in-progress', fingerprint: r.fingerprint };
    }
    throw new Error('idempotency key could not be acquired');
  }
  async complete(scope: string, key: string, token: string, fingerprint: string, response: StoredResponse, ttlMs: number): Promise<void> {
    await this.redis.eval(COMPLETE, 1, this.k(scope, key), token, JSON.stringify({ state: 'completed', fingerprint, response }), String(ttlMs));
  }
  async release(scope: string, key: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.k(scope, key), token);
  }
}
