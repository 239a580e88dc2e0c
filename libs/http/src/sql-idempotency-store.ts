/**
 * Durable Idempotency-Key records (DECISIONS 5) in the event store's database (table `idempotency`,
 * created by SqlEventStore's migration), so that a record and the write it guards survive a crash
 * together:
 * - `begin` reserves the key: an `in-progress` row with a short lease that this process renews while
 *   it lives (a crash frees the key within one lease), capped by the lock time the pipeline asks for.
 * - The request's append carries the reservation (handleCommand → `append({ idempotency })`) and marks
 *   the row `committed` (request, stream, position) in the append's own transaction; an append for a
 *   key another request already wrote is refused. So a write happens at most once per key.
 * - `complete` stores the response for 24 h; a replay returns it byte for byte.
 * - A retry that finds the row `committed` without a response (the process died between the commit
 *   and the answer) does not run again: `begin` reports the write, the pipeline rebuilds the answer
 *   through the route's `recover` (or a generic answer naming the stream and position) and stores it
 *   with `recovered`, so that later retries replay the same bytes.
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../eventstore/src/sql/sql-client';
import type { BeginResult, CommittedWrite, IdempotencyStore, StoredResponse } from './idempotency';
import { IDEMPOTENCY_TTL_MS } from './idempotency';

export type { CommittedWrite } from './idempotency';

export interface SqlIdempotencyStoreOptions {
  /** The event store's schema (the table lives beside the events). */
  schema: string;
  /** How long an in-progress reservation outlives its process (renewed every third of it while alive). */
  leaseMs?: number;
  /**
   * Seals stored bodies at rest: a create's answer may show a secret once (an API key, a database
   * password) and must not sit in the database in the clear for 24 hours (DECISIONS 11).
   */
  seal?: { encrypt(plain: string, aad: string): string; decrypt(sealed: string, aad: string): string };
}

interface Row {
  fingerprint: string;
  state: 'in-progress' | 'committed' | 'completed';
  expired: boolean;
  leased: boolean;
  request_id: string | null;
  stream_id: string | null;
  position: number | null;
  status: number | null;
  body: string | null;
  content_type: string | null;
  ttl_ms: number;
}

export class SqlIdempotencyStore implements IdempotencyStore {
  /** This process: the owner of the leases it renews. */
  readonly owner = randomUUID();
  /**
   * The reservations of requests still running here. Only these are renewed: a request that ended
   * without settling its key (the database was down when it answered 503) lets its lease lapse, so a
   * retry after the outage gets the key within one lease instead of 409 for the whole lock time.
   */
  private readonly live = new Set<string>();
  private readonly table: string;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sql: SqlClient,
    private readonly options: SqlIdempotencyStoreOptions,
  ) {
    if (!/^[a-z_][a-z0-9_]{0,50}$/.test(options.schema)) throw new Error(`Invalid schema name: ${options.schema}`);
    this.table = `"${options.schema}".idempotency`;
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  /** Starts renewing this process's leases (and pruning expired records). */
  start(): this {
    if (this.timer) return this;
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Extends the leases of this process's in-progress reservations; drops records past their 24 h. */
  async renew(): Promise<void> {
    if (this.live.size > 0)
      await this.sql.query(
        `UPDATE ${this.table} SET lease_until = LEAST(now() + $2::float8 * interval '1 millisecond', expires_at)
         WHERE owner = $1 AND state = 'in-progress' AND token::text = ANY($3::text[])`,
        [this.owner, this.leaseMs, [...this.live]],
      );
    await this.sql.query(`DELETE FROM ${this.table} WHERE expires_at <= now()`);
  }

  async begin(scope: string, key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const token = randomUUID();
      const outcome = await this.sql.transaction(async (tx): Promise<{ done: BeginResult } | { committed: Row } | null> => {
        const [row] = await tx.query<Row>(
          `SELECT fingerprint, state, expires_at <= now() AS expired, (lease_until IS NOT NULL AND lease_until > now()) AS leased,
                  request_id, stream_id, position, status, body, content_type,
                  GREATEST(0, extract(epoch FROM expires_at - now()) * 1000)::float8 AS ttl_ms
           FROM ${this.table} WHERE scope = $1 AND key = $2 FOR UPDATE`,
          [scope, key],
        );
        const fresh = [scope, key, fingerprint, token, this.owner, this.leaseMs, lockMs];
        if (!row) {
          const ins = await tx.query(
            `INSERT INTO ${this.table} (scope, key, fingerprint, state, token, owner, lease_until, expires_at)
             VALUES ($1, $2, $3, 'in-progress', $4, $5, now() + LEAST($6::float8, $7::float8) * interval '1 millisecond', now() + $7::float8 * interval '1 millisecond')
             ON CONFLICT (scope, key) DO NOTHING RETURNING 1 AS ok`,
            fresh,
          );
          if (ins.length === 0) return null; // taken concurrently: look again
          return { done: { state: 'acquired', token } };
        }
        // Past its 24 h, or an in-progress reservation whose process died (lease lapsed) before it
        // wrote anything (a write would have made it `committed`): the key is free again.
        if (row.expired || (row.state === 'in-progress' && !row.leased)) {
          await tx.query(
            `UPDATE ${this.table} SET fingerprint = $3, state = 'in-progress', token = $4, owner = $5,
               lease_until = now() + LEAST($6::float8, $7::float8) * interval '1 millisecond', expires_at = now() + $7::float8 * interval '1 millisecond',
               request_id = NULL, stream_id = NULL, position = NULL, committed_token = NULL, status = NULL, body = NULL, content_type = NULL,
               created_at = now()
             WHERE scope = $1 AND key = $2`,
            fresh,
          );
          return { done: { state: 'acquired', token } };
        }
        if (row.state === 'completed') {
          const response = { status: row.status!, body: this.opened(scope, key, row.body ?? ''), contentType: row.content_type ?? undefined };
          return { done: { state: 'completed', fingerprint: row.fingerprint, response, ttlMs: Number(row.ttl_ms) } };
        }
        if (row.state === 'in-progress') return { done: { state: 'in-progress', fingerprint: row.fingerprint } };
        return { committed: row }; // response lost: rebuilt below, outside the lock
      });
      if (outcome === null) continue;
      // Renewed from here on, once the reservation is known committed: a COMMIT whose answer was lost
      // (the connection cut) may have kept the row, and then it lapses within one lease.
      if ('done' in outcome && outcome.done.state === 'acquired') this.live.add(outcome.done.token);
      if ('done' in outcome) return outcome.done;
      const row = outcome.committed;
      const write: CommittedWrite = { scope, key, requestId: row.request_id, streamId: row.stream_id ?? '', position: Number(row.position ?? 0) };
      return { state: 'committed', fingerprint: row.fingerprint, write };
    }
    throw new Error('idempotency key could not be acquired');
  }

  /** The lost response, rebuilt once by the caller and stored: every later retry replays the same bytes. */
  async recovered(scope: string, key: string, response: StoredResponse): Promise<StoredResponse> {
    const [stored] = await this.sql.query<{ status: number; body: string; content_type: string | null }>(
      `UPDATE ${this.table} SET state = 'completed', status = $3, body = $4, content_type = $5
       WHERE scope = $1 AND key = $2 AND state = 'committed' RETURNING status, body, content_type`,
      [scope, key, response.status, this.sealed(scope, key, response.body), response.contentType ?? null],
    );
    if (stored) return response;
    const [other] = await this.sql.query<{ status: number; body: string; content_type: string | null }>(
      `SELECT status, body, content_type FROM ${this.table} WHERE scope = $1 AND key = $2 AND state = 'completed'`,
      [scope, key],
    );
    return other ? { status: other.status, body: this.opened(scope, key, other.body), contentType: other.content_type ?? undefined } : response;
  }

  async complete(scope: string, key: string, token: string, fingerprint: string, response: StoredResponse, ttlMs: number = IDEMPOTENCY_TTL_MS): Promise<boolean> {
    this.live.delete(token);
    // The reservation's holder, or the holder at the moment the write committed.
    const stored = await this.sql.query(
      `UPDATE ${this.table} SET state = 'completed', fingerprint = $4, status = $5, body = $6, content_type = $7,
         expires_at = now() + $8::float8 * interval '1 millisecond', token = NULL, owner = NULL, lease_until = NULL
       WHERE scope = $1 AND key = $2 AND ((state = 'in-progress' AND token = $3) OR (state = 'committed' AND committed_token = $3))
       RETURNING 1 AS ok`,
      [scope, key, token, fingerprint, response.status, this.sealed(scope, key, response.body), response.contentType ?? null, ttlMs],
    );
    return stored.length > 0;
  }

  private sealed(scope: string, key: string, body: string): string {
    return this.options.seal ? this.options.seal.encrypt(body, `idempotency:${scope}:${key}`) : body;
  }

  private opened(scope: string, key: string, body: string): string {
    return this.options.seal && body ? this.options.seal.decrypt(body, `idempotency:${scope}:${key}`) : body;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    this.live.delete(token);
    // Only a reservation that wrote nothing is freed: a committed write stays, and a retry recovers its answer.
    await this.sql.query(`DELETE FROM ${this.table} WHERE scope = $1 AND key = $2 AND state = 'in-progress' AND token = $3`, [scope, key, token]);
  }
}
