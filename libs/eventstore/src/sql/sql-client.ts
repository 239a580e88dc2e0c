import { Pool, PoolClient, types } from 'pg';
import type { PGlite } from '@electric-sql/pglite';

// int8 as JS number: positions stay far below 2^53.
types.setTypeParser(20, (v) => Number(v));

export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/** The SQL the event store needs, over node-postgres or PGlite alike. */
export interface SqlClient extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs `onNotify` with the payload whenever a NOTIFY arrives on `channel`. Returns an unlisten function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class PgSqlClient implements SqlClient {
  readonly kind = 'postgres' as const;
  private listenClient: PoolClient | null = null;

  constructor(private readonly pool: Pool) {}

  static fromUrl(url: string, max = 10): PgSqlClient {
    const pool = new Pool({ connectionString: url, max });
    // Idle-client errors (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    return new PgSqlClient(pool);
  }

  async query<R>(text: string, params: unknown[] = []): Promise<R[]> {
    const res = await this.pool.query(text, params);
    return res.rows as R[];
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const tx: SqlExecutor = {
        query: async <R>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as R[],
      };
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    if (!this.listenClient) {
      this.listenClient = await this.pool.connect();
      this.listenClient.on('error', () => undefined);
    }
    const client = this.listenClient;
    const handler = (msg: { channel: string; payload?: string }) => {
      if (msg.channel === channel) onNotify(msg.payload ?? '');
    };
    client.on('notification', handler);
    await client.query(`LISTEN "${channel}"`);
    return async () => {
      client.off('notification', handler);
    };
  }

  async close(): Promise<void> {
    if (this.listenClient) {
      this.listenClient.release(true);
      this.listenClient = null;
    }
    await this.pool.end();
  }
}

export class PgliteSqlClient implements SqlClient {
  readonly kind = 'pglite' as const;

  constructor(private readonly db: PGlite) {}

  static async open(dataDir?: string): Promise<PgliteSqlClient> {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = dataDir ? new PGlite(dataDir) : new PGlite();
    await db.waitReady;
    return new PgliteSqlClient(db);
  }

  async query<R>(text: string, params: unknown[] = []): Promise<R[]> {
    const res = await this.db.query<R>(text, params);
    return res.rows;
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) =>
      fn({ query: async <R>(text: string, params: unknown[] = []) => (await tx.query<R>(text, params)).rows }),
    );
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    return this.db.listen(channel, (payload) => onNotify(payload ?? ''));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
