/**
 * Item 1: SqlEventStore appends/s against plain INSERTs of the same rows into an unindexed table.
 * (a) single-event appends from 32 concurrent writers (own stream each, exact expectedRevision);
 * (b) 100-event appends from 8 concurrent writers.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { NewEvent } from '../libs/eventstore/src/event-store.port';
import { SqlEventStore } from '../libs/eventstore/src/sql/sql-event-store';
import { log, row, shortId, timedLoop, type Row } from './lib';

export interface EventStoreBenchOptions {
  pgUrl: string;
  durationMs: number;
}

function newEvent(streamId: string, seq: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'compute.InstanceResized.v1',
    data: { instanceId: streamId, seq, flavor: 'gp.medium', vcpus: 2, memoryMb: 4096, region: 'eu-central-1', labels: { env: 'bench', team: 'platform' } },
    metadata: { projectId: '0190f3a1-bench-project', actor: 'apikey:bench', requestId: randomUUID(), correlationId: randomUUID(), schemaVersion: 1 },
  };
}

/** The same row values the event store writes (uuid, text stream id, bigint revision, text type, jsonb data, jsonb metadata). */
function rowOf(streamId: string, revision: number, e: NewEvent): unknown[] {
  return [e.id, streamId, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)];
}

function multiRowInsert(table: string, rows: unknown[][]): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const values = rows.map((r) => {
    const b = params.length;
    params.push(...r);
    return `($${b + 1}::uuid, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}::jsonb, $${b + 6}::jsonb)`;
  });
  return { text: `INSERT INTO ${table} (event_id, stream_id, revision, type, data, metadata) VALUES ${values.join(',')}`, params };
}

export async function benchEventStore(opts: EventStoreBenchOptions): Promise<Row[]> {
  const id = shortId();
  const schema = `bench_es_${id}`;
  const baseSchema = `bench_raw_${id}`;
  const store = await SqlEventStore.postgres(opts.pgUrl, { schema, poolSize: 10 });
  const pool = new Pool({ connectionString: opts.pgUrl, max: 32 });
  pool.on('error', () => undefined);
  const rows: Row[] = [];
  try {
    await pool.query(`CREATE SCHEMA "${baseSchema}"`);
    const table = `"${baseSchema}".events`;
    await pool.query(`CREATE TABLE ${table} (event_id uuid NOT NULL, stream_id text NOT NULL, revision bigint NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL)`);
    // Open all 32 baseline connections before timing.
    const warm = await Promise.all(Array.from({ length: 32 }, () => pool.connect()));
    warm.forEach((c) => c.release());
    await store.append(`warmup-${id}`, [newEvent('warmup', 0)], { expectedRevision: 'no_stream' });

    // (a) single-event appends, 32 writers, own stream, exact expected revision.
    const revs = new Array<number>(32).fill(-1);
    const streams = Array.from({ length: 32 }, (_, w) => `instance-${id}-${w}`);
    const single = await timedLoop(32, opts.durationMs, async (w) => {
      const expected = revs[w] < 0 ? 'no_stream' : revs[w];
      const r = await store.append(streams[w], [newEvent(streams[w], revs[w] + 1)], { expectedRevision: expected });
      revs[w] = r.nextRevision;
    });
    const singleRate = single.units / single.seconds;
    const rawRevs = new Array<number>(32).fill(-1);
    const rawSingle = await timedLoop(32, opts.durationMs, async (w) => {
      const e = newEvent(streams[w], rawRevs[w] + 1);
      const q = multiRowInsert(table, [rowOf(streams[w], ++rawRevs[w], e)]);
      await pool.query(q.text, q.params);
    });
    const rawSingleRate = rawSingle.units / rawSingle.seconds;
    log(`event store single appends: ${Math.round(singleRate)}/s (raw INSERT ${Math.round(rawSingleRate)}/s)`);
    rows.push(
      row({ item: '1a', metric: 'event store: 1-event appends, 32 writers', unit: 'events/s', value: singleRate, baselineName: 'raw INSERT, 32 conns', baseline: rawSingleRate, target: 0.5, targetKind: 'ratio' }),
    );

    // (b) 100-event appends, 8 writers.
    const bRevs = new Array<number>(8).fill(-1);
    const bStreams = Array.from({ length: 8 }, (_, w) => `job-${id}-${w}`);
    const batch = await timedLoop(8, opts.durationMs, async (w) => {
      const events = Array.from({ length: 100 }, (_, k) => newEvent(bStreams[w], bRevs[w] + 1 + k));
      const r = await store.append(bStreams[w], events, { expectedRevision: bRevs[w] < 0 ? 'no_stream' : bRevs[w] });
      bRevs[w] = r.nextRevision;
      return 100;
    });
    const batchRate = batch.units / batch.seconds;
    const rawBRevs = new Array<number>(8).fill(-1);
    const rawBatch = await timedLoop(8, opts.durationMs, async (w) => {
      const rs = Array.from({ length: 100 }, () => {
        const rev = ++rawBRevs[w];
        return rowOf(bStreams[w], rev, newEvent(bStreams[w], rev));
      });
      const q = multiRowInsert(table, rs);
      await pool.query(q.text, q.params);
      return 100;
    });
    const rawBatchRate = rawBatch.units / rawBatch.seconds;
    log(`event store 100-event appends: ${Math.round(batchRate)} ev/s (raw INSERT ${Math.round(rawBatchRate)} ev/s)`);
    rows.push(
      row({ item: '1b', metric: 'event store: 100-event appends, 8 writers', unit: 'events/s', value: batchRate, baselineName: 'raw 100-row INSERT, 8 conns', baseline: rawBatchRate, target: 0.5, targetKind: 'ratio' }),
    );
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${baseSchema}" CASCADE`).catch(() => undefined);
    await store.dropSchema().catch(() => undefined);
    await store.close();
    await pool.end();
  }
  return rows;
}
