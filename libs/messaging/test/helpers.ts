import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { Consumer, KafkaMessage } from 'kafkajs';
import { Client, Pool } from 'pg';
import type { CheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { requireEngine } from '../../../test/engines';

export const PG_URL = requireEngine('PG_URL');
export const KAFKA_BROKERS = requireEngine('KAFKA_BROKERS')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);

export function uid(n = 10): string {
  return randomUUID().replace(/-/g, '').slice(0, n);
}

/** Fails loudly (never skips) when an engine the suite needs does not answer. */
export async function assertEnginesUp(): Promise<void> {
  const c = new Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at PG_URL=${PG_URL} (${(err as Error).message}). Run "bash scripts/engines.sh up" or point PG_URL at a server.`,
    );
  } finally {
    await c.end().catch(() => undefined);
  }
  const admin = new Kafka({
    clientId: 'relay-test-probe',
    brokers: KAFKA_BROKERS,
    connectionTimeout: 3000,
    retry: { retries: 1 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } catch (err) {
    throw new Error(
      `Kafka is not reachable at KAFKA_BROKERS=${KAFKA_BROKERS.join(',')} (${(err as Error).message}). Run "bash scripts/engines.sh up" or point KAFKA_BROKERS at a broker.`,
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** A real checkpoint store: one PostgreSQL table in the suite's schema. Records every save. */
export class PgCheckpointStore implements CheckpointStore {
  readonly saves: number[] = [];
  private constructor(
    private readonly pool: Pool,
    private readonly table: string,
  ) {}

  static async open(url: string, schema: string): Promise<PgCheckpointStore> {
    const pool = new Pool({ connectionString: url, max: 2 });
    pool.on('error', () => undefined);
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const table = `"${schema}".relay_checkpoints`;
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (name text PRIMARY KEY, position bigint NOT NULL)`);
    return new PgCheckpointStore(pool, table);
  }

  async load(name: string): Promise<number> {
    const r = await this.pool.query<{ position: string }>(`SELECT position FROM ${this.table} WHERE name = $1`, [name]);
    return r.rows.length ? Number(r.rows[0].position) : 0;
  }

  async save(name: string, position: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`,
      [name, position],
    );
    this.saves.push(position);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const c = new Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}

export interface Consumed {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** Consumes `topics` from the beginning with a fresh group until `done(all)` holds or the timeout passes. */
export async function consumeUntil(
  topics: string[],
  done: (all: Consumed[]) => boolean,
  timeoutMs: number,
): Promise<{ messages: Consumed[]; complete: boolean }> {
  const kafka = new Kafka({ clientId: 'relay-test-consumer', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
  const consumer: Consumer = kafka.consumer({ groupId: `relay-test-${uid()}`, maxWaitTimeInMs: 200 });
  const messages: Consumed[] = [];
  let resolveDone!: () => void;
  const finished = new Promise<void>((r) => (resolveDone = r));
  try {
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        messages.push(toConsumed(topic, partition, message));
        if (done(messages)) resolveDone();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const complete = await Promise.race([
      finished.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return { messages, complete };
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
}

function toConsumed(topic: string, partition: number, m: KafkaMessage): Consumed {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return { topic, partition, offset: m.offset, key: m.key?.toString() ?? '', value: m.value?.toString() ?? '', headers };
}

/** Best-effort removal of the topics a test wrote. */
export async function deleteTopics(topics: string[]): Promise<void> {
  if (topics.length === 0) return;
  const admin = new Kafka({ clientId: 'relay-test-cleanup', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING, retry: { retries: 1 } }).admin();
  try {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    const mine = topics.filter((t) => existing.has(t));
    if (mine.length) await admin.deleteTopics({ topics: mine, timeout: 10_000 });
  } catch {
    // best effort
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export const quietLogger = { warn: () => undefined, error: () => undefined };
