import * as fs from 'node:fs';
import * as path from 'node:path';
import { Histogram } from 'prom-client';
import type { AppConfig } from '../../config/src/config';
import type { EventStore } from '../../eventstore/src/event-store.port';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { EsdbEventStore } from '../../eventstore/src/esdb/esdb-event-store';
import type { ReadStore } from '../../readstore/src/read-store.port';
import { MemoryReadStore } from '../../readstore/src/memory-read-store';
import { MongoReadStore } from '../../readstore/src/mongo-read-store';
import { metricsRegistry } from '../../http/src/metrics';
import { sqlSignals, type Signals } from './checkpoint-signals';

const appendLatency = new Histogram({
  name: 'eventstore_append_duration_seconds',
  help: 'Event store group-commit latency per transaction',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [metricsRegistry],
});

/** The two stores every process stands on, chosen by the profile. */
export interface Engines {
  events: EventStore;
  reads: ReadStore;
}

export async function openEngines(config: AppConfig): Promise<Engines> {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return { events: await openEventStore(config), reads: await openReadStore(config) };
}

/** Signals between the processes of a deployment: PostgreSQL's NOTIFY where the event store is on it, else none. */
export function signalsOf(events: EventStore): Signals | null {
  return events instanceof SqlEventStore && events.sqlClient.kind === 'postgres' ? sqlSignals(events.sqlClient) : null;
}

async function openEventStore(config: AppConfig): Promise<EventStore> {
  const es = config.eventStore;
  let store: EventStore;
  if (es.kind === 'postgres') store = await SqlEventStore.postgres(es.pgUrl!, { schema: es.pgSchema, poolSize: 10 });
  else if (es.kind === 'eventstoredb') store = EsdbEventStore.connect(es.esdbUrl!);
  else store = await SqlEventStore.pglite(path.join(config.dataDir, 'eventstore'), { schema: es.pgSchema, template: es.pgliteTemplate });
  if (store instanceof SqlEventStore) store.onAppendCommitted = (_n, ms) => appendLatency.observe(ms / 1000);
  return store;
}

async function openReadStore(config: AppConfig): Promise<ReadStore> {
  if (config.readStore.kind === 'mongodb') return MongoReadStore.connect(config.readStore.mongoUrl!, config.readStore.mongoDb);
  return new MemoryReadStore();
}
