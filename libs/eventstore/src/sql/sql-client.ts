import * as fs from 'node:fs';
import * as path from 'node:path';
import { Pool, PoolClient, types } from 'pg';
import type { PGlite } from '@electric-sql/pglite';

// int8 as JS number: positions stay far below 2^53.
types.setTypeParser(20, (v) => Number(v));

export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/**
 * A transaction sent as scripts: each `send` is one round trip of statements whose values are
 * inlined (`sqlLiteral`), BEGIN riding on the first and COMMIT on the one marked `commit`. A write
 * that reads, decides and writes takes two round trips instead of one per statement plus BEGIN and
 * COMMIT. Answers each statement's rows.
 */
export interface ScriptedTransaction {
  send(statements: string[], options?: { commit?: boolean }): Promise<Array<Record<string, unknown>[]>>;
}

/**
 * A value inlined into a script: a number as itself; a string quoted as it is when it holds neither
 * quote nor backslash, else dollar-quoted with a tag it does not contain (no per-character escaping:
 * pg's escapeLiteral takes ~190 ms for a 350 kB batch of events on a loaded machine, the native
 * `includes` a few microseconds).
 */
export function sqlLiteral(v: string | number): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  if (!/['\\]/.test(v)) return `'${v}'`;
  for (let n = 0; ; n++) {
    const tag = `$l${n}$`;
    if (!v.includes(tag) && !v.endsWith(tag.slice(0, -1))) return `${tag}${v}${tag}`;
  }
}

/** The SQL the event store needs, over node-postgres or PGlite alike. */
export interface SqlClient extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  scripted<T>(fn: (tx: ScriptedTransaction) => Promise<T>): Promise<T>;
  /** Runs `onNotify` with the payload whenever a NOTIFY arrives on `channel`. Returns an unlisten function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The longest a query waits for a pooled connection (then: 'timeout exceeded when trying to connect', a 503). */
const CHECKOUT_TIMEOUT_MS = 5_000;
/**
 * The longest a query waits for its answer on a connection it holds (node-postgres' client-side
 * `query_timeout`). A server that stopped answering without closing the connection (a network
 * blackhole, a peer gone silent: TCP keepalive takes hours to notice) would otherwise hold the query,
 * and with it the group commit and every append queued behind it, forever. Past it the query fails
 * with ETIMEDOUT (a 503) and its connection is destroyed. The server's own statement_timeout cannot
 * help here: it never hears of the wait. No query of the service takes near this long.
 */
export const QUERY_TIMEOUT_MS = 10_000;

/** The error of a query that got no answer within QUERY_TIMEOUT_MS: a network failure (ETIMEDOUT), not a bug. */
export class SqlQueryTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number, cause: unknown) {
    super(`PostgreSQL did not answer within ${ms} ms`, { cause });
    this.name = 'SqlQueryTimeoutError';
  }
}

/** node-postgres' query_timeout error ('Query read timeout') as a SqlQueryTimeoutError; any other error as it is. */
function timedOut(err: unknown, ms: number): unknown {
  return err instanceof Error && err.message === 'Query read timeout' ? new SqlQueryTimeoutError(ms, err) : err;
}

/**
 * Whether an append failed because the database could not be reached or did not answer (so its
 * neighbours in a group commit would fail alike), rather than because of what it wrote.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (err instanceof SqlQueryTimeoutError) return true;
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (/^(08...|57P0[1-3])$/.test(code) || /^E[A-Z]+$/.test(code))) return true;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|not queryable/i.test(message);
}

export class PgSqlClient implements SqlClient {
  readonly kind = 'postgres' as const;
  private listenClient: PoolClient | null = null;
  /** Every LISTEN asked for, re-issued on a new connection after the old one is lost. */
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private relisten: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly queryTimeoutMs = QUERY_TIMEOUT_MS,
  ) {}

  static fromUrl(url: string, max = 10, queryTimeoutMs = QUERY_TIMEOUT_MS): PgSqlClient {
    // A checkout (a wait for a free client, or a new connection) is bounded: node-postgres waits
    // forever by default, so a request that needs the database while it is unreachable would hang
    // (holding its Idempotency-Key, a retry gets 409 for as long) instead of failing with 503.
    // keepAlive: a connection whose peer vanished without a FIN is found dead, not waited on.
    // query_timeout: see QUERY_TIMEOUT_MS (pool.query destroys the connection of a failed query).
    const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: CHECKOUT_TIMEOUT_MS, keepAlive: true, query_timeout: queryTimeoutMs });
    // Idle-client errors (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    return new PgSqlClient(pool, queryTimeoutMs);
  }

  async query<R>(text: string, params: unknown[] = []): Promise<R[]> {
    try {
      const res = await this.pool.query(text, params);
      return res.rows as R[];
    } catch (err) {
      throw timedOut(err, this.queryTimeoutMs);
    }
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection lost while checked out emits 'error' on the client, which the pool only listens to
    // while the client is idle: unheard, it would crash the process. The query in flight fails anyway.
    let lost: Error | undefined;
    const onError = (err: Error) => (lost = err);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const tx: SqlExecutor = {
        query: async <R>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as R[],
      };
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      const e = timedOut(err, this.queryTimeoutMs);
      // A connection whose query got no answer still has it in flight: it is destroyed, not rolled back.
      if (e instanceof SqlQueryTimeoutError) lost ??= e;
      if (!lost) await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.off('error', onError);
      client.release(lost); // a lost connection is destroyed, not returned to the pool
    }
  }

  async scripted<T>(fn: (tx: ScriptedTransaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let lost: Error | undefined;
    const onError = (err: Error) => (lost = err);
    client.on('error', onError);
    let [begun, committed] = [false, false];
    try {
      const tx: ScriptedTransaction = {
        send: async (statements, { commit = false } = {}) => {
          if (committed) throw new Error('the transaction has committed');
          const first = !begun;
          begun = true;
          // No parameters: the simple query protocol, which takes several statements in one message.
          const res = (await client.query([...(first ? ['BEGIN'] : []), ...statements, ...(commit ? ['COMMIT'] : [])].join(';\n'))) as unknown as { rows: Record<string, unknown>[] } | Array<{ rows: Record<string, unknown>[] }>;
          if (commit) committed = true;
          const all = Array.isArray(res) ? res : [res];
          return all.slice(first ? 1 : 0, (first ? 1 : 0) + statements.length).map((r) => r.rows);
        },
      };
      const result = await fn(tx);
      if (begun && !committed) await client.query('COMMIT');
      return result;
    } catch (err) {
      const e = timedOut(err, this.queryTimeoutMs);
      // As in transaction(): a connection whose script got no answer is destroyed, not rolled back.
      if (e instanceof SqlQueryTimeoutError) lost ??= e;
      if (begun && !committed && !lost) await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.off('error', onError);
      client.release(lost);
    }
  }

  /**
   * One connection carries every LISTEN. When it is lost (a restart, a network cut) a new one is made
   * with backoff, every channel is listened to again, and each listener is called once with '' so a
   * subscriber catches up on what it may have missed while no notification could arrive.
   */
  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    const first = !set;
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(onNotify);
    const client = await this.listenConnection();
    if (first && client === this.listenClient) await client.query(`LISTEN "${channel}"`);
    return async () => {
      set.delete(onNotify);
    };
  }

  private async listenConnection(): Promise<PoolClient> {
    if (this.listenClient) return this.listenClient;
    const client = await this.pool.connect();
    if (this.listenClient) {
      client.release();
      return this.listenClient;
    }
    this.listenClient = client;
    client.on('notification', (msg: { channel: string; payload?: string }) => {
      for (const fn of this.listeners.get(msg.channel) ?? []) fn(msg.payload ?? '');
    });
    const lost = () => {
      if (this.listenClient !== client) return;
      this.listenClient = null;
      client.release(true);
      if (!this.closed) this.relisten ??= this.reconnectListen().finally(() => (this.relisten = null));
    };
    client.on('error', lost);
    client.on('end', lost);
    return client;
  }

  private async reconnectListen(): Promise<void> {
    for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 5000)) {
      try {
        const client = await this.listenConnection();
        for (const channel of this.listeners.keys()) await client.query(`LISTEN "${channel}"`);
        for (const fns of this.listeners.values()) for (const fn of fns) fn('');
        return;
      } catch {
        await new Promise((r) => setTimeout(r, delay).unref());
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.listenClient) {
      const client = this.listenClient;
      this.listenClient = null;
      client.release(true);
    }
    await this.pool.end();
  }
}

export class PgliteSqlClient implements SqlClient {
  readonly kind = 'pglite' as const;

  constructor(private readonly db: PGlite) {}

  /**
   * `template`: an initialized cluster (a `dumpDataDir()` tarball) that a new store starts from instead
   * of running initdb, which costs PGlite 2.5 to 5 s (the test command makes one per run). A data dir
   * that already holds a cluster is opened as it is: the template never touches existing data.
   */
  static async open(dataDir?: string, template?: string): Promise<PgliteSqlClient> {
    const { PGlite } = await import('@electric-sql/pglite');
    const fresh = !dataDir || !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
    const loadDataDir = template && fresh ? await fs.openAsBlob(template) : undefined;
    const options = loadDataDir ? { loadDataDir } : {};
    const db = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
    await db.waitReady;
    return new PgliteSqlClient(db);
  }

  async query<R>(text: string, params: unknown[] = []): Promise<R[]> {
    const res = await this.db.query<R>(text, params);
    return res.rows;
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // PGlite runs in this thread and answers through promises only: appends that follow one another
    // (a busy group commit) would be one chain of microtasks that never lets the event loop reach
    // its I/O phase (no socket written, no request read, no timer) until they stop. Each
    // transaction first lets the loop turn once.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return this.db.transaction(async (tx) =>
      fn({ query: async <R>(text: string, params: unknown[] = []) => (await tx.query<R>(text, params)).rows }),
    );
  }

  /** In-process: no round trips to save; the statements run one by one in one transaction. */
  scripted<T>(fn: (tx: ScriptedTransaction) => Promise<T>): Promise<T> {
    return this.transaction((tx) =>
      fn({
        send: async (statements) => {
          const out: Array<Record<string, unknown>[]> = [];
          for (const text of statements) out.push(await tx.query(text));
          return out;
        },
      }),
    );
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    return this.db.listen(channel, (payload) => onNotify(payload ?? ''));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
