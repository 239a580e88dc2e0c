/**
 * The state a kill between a keyed write's commit and its answer leaves (DECISIONS 5), made in a
 * running server: the keys' records back to `committed` without an answer, and (server profile) their
 * answers cached in Redis dropped. What the retry of such a key answers is then the recovery path's.
 */
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import type { TestServer } from './test-server';

function sqlOf(srv: TestServer): SqlEventStore {
  const events = srv.platform.events;
  if (!(events instanceof SqlEventStore)) throw new Error('lost answers need the SQL event store (both profiles have it)');
  return events;
}

/** Resets the keys' records; answers the keys it reset (sorted). */
export async function loseAnswers(srv: TestServer, keys: string[]): Promise<string[]> {
  const events = sqlOf(srv);
  const reset = await events.sqlClient.query<{ key: string; scope: string }>(
    `UPDATE "${events.schemaName}".idempotency SET state = 'committed', status = NULL, body = NULL, content_type = NULL
     WHERE key = ANY($1::text[]) AND state = 'completed' RETURNING key, scope`,
    [keys],
  );
  if (srv.env.REDIS_URL && reset.length) {
    const redis = new Redis(srv.env.REDIS_URL);
    try {
      await redis.del(...reset.map((r) => `idem-answer:${r.scope}:${createHash('sha256').update(r.key).digest('hex')}`));
    } finally {
      redis.disconnect();
    }
  }
  return reset.map((r) => r.key).sort();
}

/** How many events the log holds that a request with this Idempotency-Key appended (its own writes, not the work they caused). */
export async function eventsWrittenUnder(srv: TestServer, key: string): Promise<number> {
  const events = sqlOf(srv);
  const [row] = await events.sqlClient.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM "${events.schemaName}".events WHERE metadata->>'idempotencyKey' = $1 AND metadata->>'causationId' IS NULL`,
    [key],
  );
  return Number(row.n);
}
