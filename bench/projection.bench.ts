/**
 * Item 4: projection rebuild rate of `api_keys` over ~200,000 api-key events, into MongoDB/FerretDB
 * (the server Platform's own ProjectionEngine) and into memory (a second ProjectionEngine with a
 * MemoryReadStore over the same PostgreSQL event store). Baseline: a read-only `readAll` scan of the
 * same events in the same batch size, so the ratio is what projecting costs on top of reading.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { Platform } from '../libs/runtime/src/platform';
import { CONTEXT_MODULES } from '../contexts/registrations';
import { loadConfig } from '../libs/config/src/config';
import type { EventStore, NewEvent } from '../libs/eventstore/src/event-store.port';
import { apiKeyStream, IdentityEventTypes } from '../libs/domain/identity/events';
import { MemoryReadStore } from '../libs/readstore/src/memory-read-store';
import { ReadStoreCheckpointStore } from '../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../libs/subscriptions/src/projection-engine';
import type { DocumentProjection } from '../libs/subscriptions/src/document-projection';
import { apiKeysProjection } from '../projections/api-keys/api-keys.projection';
import { cleanup } from './http.bench';
import { log, row, shortId, type Engines, type Row } from './lib';

export interface ProjectionBenchOptions {
  engines: Engines;
  /** Keys in the history; each gets 5 events (issued, used x3, revoked). */
  keys: number;
  /**
   * Keys of the first part of the history, the one the FerretDB rebuild replays (FerretDB writes a
   * few hundred docs/s on this machine, so the full history would take many minutes).
   */
  mongoKeys: number;
  /** Keys whose events are interleaved round-robin in the log (a window of concurrent activity). */
  window: number;
  batchSize: number;
}

const PER_KEY = 5;

function keyEvents(keyId: string, projectId: string, t: number): NewEvent[] {
  const at = (ms: number) => new Date(t + ms).toISOString();
  const meta = () => ({ projectId, actor: `apikey:${keyId}`, requestId: randomUUID(), correlationId: randomUUID(), schemaVersion: 1 });
  const prefix = `svc_test_${keyId.slice(-3)}`;
  return [
    {
      id: uuidv7(),
      type: IdentityEventTypes.ApiKeyIssued,
      data: { keyId, projectId, scope: 'project', name: `key-${keyId.slice(-6)}`, prefix, keyHash: createHash('sha256').update(keyId).digest('hex'), role: 'developer', expiresAt: null, createdAt: at(0) },
      metadata: meta(),
    },
    { id: uuidv7(), type: IdentityEventTypes.ApiKeyUsed, data: { keyId, usedAt: at(60_000) }, metadata: meta() },
    { id: uuidv7(), type: IdentityEventTypes.ApiKeyUsed, data: { keyId, usedAt: at(120_000) }, metadata: meta() },
    { id: uuidv7(), type: IdentityEventTypes.ApiKeyUsed, data: { keyId, usedAt: at(180_000) }, metadata: meta() },
    { id: uuidv7(), type: IdentityEventTypes.ApiKeyRevoked, data: { keyId, projectId, revokedAt: at(240_000) }, metadata: meta() },
  ];
}

/** Appends the history: windows of `window` keys, their events interleaved round by round (group-committed). */
export async function appendKeyHistory(store: EventStore, keys: number, window: number): Promise<{ events: number; ms: number }> {
  const projects = Array.from({ length: 200 }, () => uuidv7());
  const started = performance.now();
  let events = 0;
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  for (let from = 0; from < keys; from += window) {
    const group = Array.from({ length: Math.min(window, keys - from) }, (_, i) => {
      const keyId = uuidv7();
      return { stream: apiKeyStream(keyId), events: keyEvents(keyId, projects[(from + i) % projects.length], t0 + (from + i) * 1000) };
    });
    for (let r = 0; r < PER_KEY; r++) {
      await Promise.all(group.map((g) => store.append(g.stream, [g.events[r]], { expectedRevision: r === 0 ? 'no_stream' : r - 1 })));
      events += group.length;
    }
  }
  return { events, ms: performance.now() - started };
}

/** Read-only scan of the whole log, batch by batch (what a rebuild reads). */
export async function scanAll(store: EventStore, fromPosition: number, toPosition: number, batchSize: number): Promise<{ events: number; ms: number }> {
  const started = performance.now();
  let position = fromPosition;
  let events = 0;
  while (position < toPosition) {
    const batch = await store.readAll({ fromPosition: position, maxCount: Math.min(batchSize, toPosition - position) });
    if (batch.length === 0) break;
    events += batch.length;
    position = batch[batch.length - 1].position;
  }
  return { events, ms: performance.now() - started };
}

export async function benchProjections(opts: ProjectionBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const id = shortId();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-proj-'));
  const schema = `bench_proj_${id}`;
  const db = `bench_proj_${id}`;
  const config = loadConfig(
    {},
    {
      PROFILE: 'server',
      DATA_DIR: dataDir,
      PG_URL: opts.engines.pgUrl,
      PG_SCHEMA: schema,
      MONGO_URL: opts.engines.mongoUrl,
      MONGO_DB: db,
      REDIS_URL: opts.engines.redisUrl,
      KAFKA_BROKERS: opts.engines.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: `bench${id}`,
    },
  );
  const logger = pino({ level: 'warn' }, pino.destination({ dest: path.join(dataDir, 'platform.log'), sync: false }));
  // Opened, not started: no live runners compete with the rebuild (the rebuild starts one at its end).
  const platform = await Platform.open(config, logger, CONTEXT_MODULES);
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  let memEngine: ProjectionEngine | null = null;
  try {
    // Part 1 of the history, rebuilt into FerretDB through the server Platform's own ProjectionEngine.
    const part1 = await appendKeyHistory(platform.events, opts.mongoKeys, opts.window);
    const head1 = await platform.events.headPosition();
    const mongo = await platform.projections.rebuild('api_keys', { batchSize: opts.batchSize });
    const keysColl = await platform.projections.collection(apiKeysProjection);
    const mongoDocs = (await keysColl.find({ limit: 0 })).total;
    log(`rebuild into ${platform.reads.kind}: ${mongo.events} events in ${(mongo.ms / 1000).toFixed(2)} s (${Math.round(mongo.eventsPerSec)} ev/s), ${mongoDocs} docs`);
    const scan1 = await scanAll(platform.events, 0, head1, opts.batchSize);
    const scan1Rate = scan1.events / (scan1.ms / 1000);

    // The rest of the ~200k-event history; the memory rebuild replays all of it.
    const part2 = await appendKeyHistory(platform.events, opts.keys - opts.mongoKeys, opts.window);
    const appended = { events: part1.events + part2.events, ms: part1.ms + part2.ms };
    const head = await platform.events.headPosition();
    log(`history: ${appended.events} api-key events (${opts.keys} keys) appended in ${(appended.ms / 1000).toFixed(1)} s (${Math.round(appended.events / (appended.ms / 1000))} ev/s)`);
    details.history = { events: appended.events, keys: opts.keys, window: opts.window, appendMs: Math.round(appended.ms), mongoRebuildEvents: part1.events };

    // The memory rebuild takes about 2 s, short enough for a GC pause or a busy neighbour to move it by
    // a quarter: it runs three times, each after its own scan baseline, and the medians are reported.
    type Timed = { events: number; ms: number; eventsPerSec: number };
    const scans: Timed[] = [];
    const memories: Timed[] = [];
    let memDocs = 0;
    for (let round = 0; round < 3; round++) {
      const s = await scanAll(platform.events, 0, head, opts.batchSize);
      scans.push({ ...s, eventsPerSec: s.events / (s.ms / 1000) });
      await memEngine?.stop().catch(() => undefined);
      const mem = new MemoryReadStore();
      memEngine = new ProjectionEngine(platform.events, mem, new ReadStoreCheckpointStore(mem), [apiKeysProjection as unknown as DocumentProjection]);
      const r = await memEngine.rebuild('api_keys', { batchSize: opts.batchSize });
      memories.push({ events: r.events, ms: r.ms, eventsPerSec: r.eventsPerSec });
      memDocs = (await (await memEngine.collection(apiKeysProjection)).find({ limit: 0 })).total;
      log(`round ${round + 1}: readAll scan ${s.events} events in ${(s.ms / 1000).toFixed(2)} s (${Math.round(scans[round].eventsPerSec)} ev/s); rebuild into memory ${r.events} events in ${(r.ms / 1000).toFixed(2)} s (${Math.round(r.eventsPerSec)} ev/s), ${memDocs} docs`);
    }
    const median = (xs: Timed[]) => [...xs].sort((a, b) => a.eventsPerSec - b.eventsPerSec)[1];
    const scan = median(scans);
    const scanRate = scan.eventsPerSec;
    const memory = median(memories);
    log(`medians of 3: readAll scan ${Math.round(scanRate)} ev/s, rebuild into memory ${Math.round(memory.eventsPerSec)} ev/s`);
    if (mongoDocs !== opts.mongoKeys || memDocs !== opts.keys) log(`WARNING: expected ${opts.mongoKeys} / ${opts.keys} api-key documents, got mongo ${mongoDocs} / memory ${memDocs}`);

    details.rebuild = { scan: { ...scan, eventsPerSec: Math.round(scanRate) }, memoryRounds: memories.map((m) => Math.round(m.eventsPerSec)), scanRounds: scans.map((m) => Math.round(m.eventsPerSec)), scanMongoPart: { ...scan1, eventsPerSec: Math.round(scan1Rate) }, mongo: { ...mongo, docs: mongoDocs }, memory: { ...memory, docs: memDocs } };
    rows.push(
      row({ item: '4', metric: `rebuild api_keys -> FerretDB (${Math.round(mongo.events / 1000)}k ev)`, unit: 'events/s', value: mongo.eventsPerSec, baselineName: 'readAll scan, same events', baseline: scan1Rate, target: 20_000, targetKind: 'absolute' }),
      row({ item: '4', metric: `rebuild api_keys -> memory (${Math.round(memory.events / 1000)}k ev, median of 3)`, unit: 'events/s', value: memory.eventsPerSec, baselineName: 'readAll scan, median of 3', baseline: scanRate, target: 100_000, targetKind: 'absolute' }),
    );
  } finally {
    await memEngine?.stop().catch(() => undefined);
    await platform.close().catch((err) => log(`platform close failed: ${String(err)}`));
    logger.flush();
    await cleanup(opts.engines, schema, db);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, details };
}
