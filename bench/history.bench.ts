/**
 * Item c4 (group "compute"): rebuild every read model in `PROJECTIONS` from a mixed history of
 * BENCH_HISTORY_EVENTS (default 1,000,000) events, into FerretDB (the server Platform's own
 * ProjectionEngine, opened but not started, so no live runner competes). Baseline: the read-only
 * `readAll` scan of the same events in the same batch size.
 *
 * The history: instances with their full lifecycles (requested -> job enqueued / started ->
 * provisioning started / provisioned -> job completed; then some stopped, some terminated, some
 * retagged, each through its own job), projects and API keys (issued, used, some revoked). Entities
 * are appended in windows, step by step, so their events interleave in the log as concurrent
 * activity would; each step is one append (group-committed by the store).
 */
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { Platform } from '../libs/runtime/src/platform';
import { CONTEXT_MODULES, PROJECTIONS } from '../contexts/registrations';
import type { EventStore, NewEvent } from '../libs/eventstore/src/event-store.port';
import { instanceStream, type InstanceSpecData } from '../libs/domain/compute/instance.events';
import { jobStream } from '../libs/domain/jobs/events';
import { instanceCreatePayload } from '../sagas/job-executor/job-dispatcher';
import { apiKeyStream, IdentityEventTypes, projectStream } from '../libs/domain/identity/events';
import { MemoryReadStore } from '../libs/readstore/src/memory-read-store';
import { MongoReadStore } from '../libs/readstore/src/mongo-read-store';
import { ReadStoreCheckpointStore } from '../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../libs/subscriptions/src/projection-engine';
import { cleanup } from './http.bench';
import { deleteTopics, serverConfig } from './compute.bench';
import { scanAll } from './projection.bench';
import { log, quiesce, row, shortId, type Engines, type Row } from './lib';

export interface HistoryBenchOptions {
  engines: Engines;
  events: number;
  /** Entities whose steps interleave (one append each per round). */
  window: number;
  batchSize: number;
  /** Also rebuild every projection into a MemoryReadStore (doubles the read time). */
  memory: boolean;
}

type Step = { stream: string; events: NewEvent[] };

/** Deterministic PRNG (mulberry32), so every run appends the same mix. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function spec(projectId: string, providerId: string, name: string, n: number): InstanceSpecData {
  return {
    projectId,
    providerId,
    providerKind: 'provider_publiccloud',
    name,
    hostname: `${name}.us-east-1`,
    region: 'us-east-1',
    site: 'us-east-1a',
    instanceType: 'pc-t3-medium',
    plan: { slug: 'pc-t3-medium', name: 't3.medium' },
    image: 'ubuntu-22-04',
    operatingSystem: { slug: 'ubuntu-22-04', name: 'Ubuntu 22.04' },
    diskSizeGb: null,
    workerCount: 1,
    spot: n % 7 === 0,
    ports: [22, 443],
    autoStopMinutes: n % 5 === 0 ? 120 : null,
    accelerators: null,
    sshKeyId: null,
    tags: [
      { key: 'env', value: n % 3 === 0 ? 'prod' : 'dev' },
      { key: 'team', value: `team-${n % 17}` },
    ],
    vcpus: 2,
    ramMb: 4096,
    diskGb: 40,
    gpus: 0,
    gpuType: null,
    hourlyPriceCents: 4,
  };
}

class HistoryGen {
  private readonly rnd = prng(42);
  private n = 0;
  jobs = 0;
  readonly projects: Array<{ id: string; providerId: string }> = Array.from({ length: 100 }, () => ({ id: uuidv7(), providerId: uuidv7() }));
  private clock = Date.parse('2025-01-01T00:00:00Z');

  private at(): string {
    this.clock += 50;
    return new Date(this.clock).toISOString();
  }

  private meta(projectId: string | null, actor: string, causationId?: string) {
    return { ...(projectId ? { projectId } : {}), actor, requestId: randomUUID(), correlationId: randomUUID(), ...(causationId ? { causationId } : {}), schemaVersion: 1 };
  }

  projectSteps(): Step[][] {
    return this.projects.map((p) => [{ stream: projectStream(p.id), events: [{ id: uuidv7(), type: IdentityEventTypes.ProjectCreated, data: { projectId: p.id, name: `project-${p.id.slice(-6)}`, createdAt: this.at() }, metadata: this.meta(p.id, 'system:bench') }] }]);
  }

  /** One job's steps around its instance steps: enqueue, attempt started, [instance events], completed. */
  private jobSteps(projectId: string, instanceId: string, jobId: string, type: 'instance.create' | 'instance.action' | 'instance.delete', operation: string, payload: Record<string, unknown>, instanceEvents: NewEvent[]): Step[] {
    const js = jobStream(jobId);
    this.jobs++;
    const sys = (t: string, d: Record<string, unknown>): NewEvent => ({ id: uuidv7(), type: t, data: d, metadata: this.meta(projectId, 'system:job-executor') });
    return [
      { stream: js, events: [sys('jobs.JobEnqueued.v1', { jobId, projectId, type, resourceType: 'instance', resourceId: instanceId, operation, payload, maxAttempts: 3, enqueuedAt: this.at() })] },
      { stream: js, events: [sys('jobs.JobAttemptStarted.v1', { jobId, attempt: 1, startedAt: this.at() })] },
      { stream: instanceStream(instanceId), events: instanceEvents },
      { stream: js, events: [sys('jobs.JobCompleted.v1', { jobId, attempt: 1, completedAt: this.at(), result: { instanceId, operation } })] },
    ];
  }

  instanceSteps(): Step[] {
    const n = this.n++;
    const p = this.projects[n % this.projects.length];
    const instanceId = uuidv7();
    const s = spec(p.id, p.providerId, `vm-${n}`, n);
    const is = instanceStream(instanceId);
    const ev = (t: string, d: Record<string, unknown>, actor = 'system:job-executor'): NewEvent => ({ id: uuidv7(), type: t, data: d, metadata: this.meta(p.id, actor) });
    const job1 = uuidv7();
    const requestedAt = this.at();
    const steps: Step[] = [{ stream: is, events: [ev('compute.InstanceRequested.v1', { ...s, instanceId, jobId: job1, requestedAt }, `apikey:${p.id.slice(-8)}`)] }];
    steps.push(
      ...this.jobSteps(p.id, instanceId, job1, 'instance.create', 'create', instanceCreatePayload(s), [
        ev('compute.InstanceProvisioningStarted.v1', { instanceId, jobId: job1, at: this.at() }),
        ev('compute.InstanceProvisioned.v1', { instanceId, jobId: job1, operation: 'create', externalId: `pc-${instanceId.slice(-12)}`, hostname: s.hostname, ipv4: `10.${n % 250}.${(n >> 8) % 250}.${n % 200}`, ipv6: null, sshUser: 'ubuntu', sshPort: 22, at: this.at() }),
      ]),
    );
    let status: 'active' | 'stopped' = 'active';
    if (this.rnd() < 0.2) steps.push({ stream: is, events: [ev('compute.InstanceUpdated.v1', { instanceId, tags: [...s.tags, { key: 'owner', value: `u${n % 31}` }], at: this.at() }, 'apikey:bench')] });
    const action = (a: 'stop' | 'terminate', jobType: 'instance.action' | 'instance.delete', to: string, done: NewEvent['type']) => {
      const jobId = uuidv7();
      const requestedAt2 = this.at();
      steps.push({ stream: is, events: [ev('compute.InstanceActionRequested.v1', { instanceId, jobId, jobType, action: a, from: status, to, requestedAt: requestedAt2, requestedBy: 'apikey:bench' }, 'apikey:bench')] });
      steps.push(...this.jobSteps(p.id, instanceId, jobId, jobType, a, { action: a, from: status, requestedBy: 'apikey:bench' }, [ev(done, { instanceId, jobId, at: this.at() })]));
    };
    if (this.rnd() < 0.5) {
      action('stop', 'instance.action', 'stopping', 'compute.InstanceStopped.v1');
      status = 'stopped';
    }
    if (this.rnd() < 0.3) action('terminate', 'instance.delete', 'terminating', 'compute.InstanceTerminated.v1');
    return steps;
  }

  keySteps(): Step[] {
    const p = this.projects[Math.floor(this.rnd() * this.projects.length)];
    const keyId = uuidv7();
    const ks = apiKeyStream(keyId);
    const ev = (t: string, d: Record<string, unknown>): NewEvent => ({ id: uuidv7(), type: t, data: d, metadata: this.meta(p.id, `apikey:${keyId}`) });
    const steps: Step[] = [
      { stream: ks, events: [ev(IdentityEventTypes.ApiKeyIssued, { keyId, projectId: p.id, scope: 'project', name: `key-${keyId.slice(-6)}`, prefix: `svc_test_${keyId.slice(-3)}`, keyHash: createHash('sha256').update(keyId).digest('hex'), role: 'developer', expiresAt: null, createdAt: this.at() })] },
      { stream: ks, events: [ev(IdentityEventTypes.ApiKeyUsed, { keyId, usedAt: this.at() })] },
      { stream: ks, events: [ev(IdentityEventTypes.ApiKeyUsed, { keyId, usedAt: this.at() })] },
    ];
    if (this.rnd() < 0.2) steps.push({ stream: ks, events: [ev(IdentityEventTypes.ApiKeyRevoked, { keyId, projectId: p.id, revokedAt: this.at() })] });
    return steps;
  }
}

/** Appends entity step lists round by round: step r of every entity of the window concurrently. */
async function appendRounds(store: EventStore, entities: Step[][]): Promise<number> {
  const revisions = new Map<string, number>();
  let events = 0;
  const rounds = Math.max(...entities.map((e) => e.length));
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      entities.map(async (steps) => {
        const step = steps[r];
        if (!step) return;
        const rev = revisions.get(step.stream);
        await store.append(step.stream, step.events, { expectedRevision: rev === undefined ? 'no_stream' : rev });
        revisions.set(step.stream, (rev ?? -1) + step.events.length);
        events += step.events.length;
      }),
    );
  }
  return events;
}

export async function appendMixedHistory(store: EventStore, target: number, window: number): Promise<{ events: number; ms: number; instances: number; keys: number; jobs: number }> {
  const gen = new HistoryGen();
  const started = performance.now();
  let events = await appendRounds(store, gen.projectSteps());
  let instances = 0;
  let keys = 0;
  let lastLog = performance.now();
  while (events < target) {
    // ~10.2 events per instance, ~3.2 per key, one key per 10 instances.
    const entities: Step[][] = [];
    let planned = 0;
    while (entities.length < window && events + planned < target) {
      const s = entities.length % 11 === 10 ? (keys++, gen.keySteps()) : (instances++, gen.instanceSteps());
      planned += s.reduce((a, x) => a + x.events.length, 0);
      entities.push(s);
    }
    events += await appendRounds(store, entities);
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(`history: ${events} / ${target} events appended (${Math.round(events / ((lastLog - started) / 1000))} ev/s)`);
    }
  }
  return { events, ms: performance.now() - started, instances, keys, jobs: gen.jobs };
}

export async function benchHistoryRebuild(opts: HistoryBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const id = shortId();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-hist-'));
  const config = serverConfig(opts.engines, id, dataDir);
  const logger = pino({ level: 'warn' }, pino.destination({ dest: path.join(dataDir, 'platform.log'), sync: false }));
  // Opened, not started: no live runners compete with the rebuilds (each rebuild starts its own at its end).
  const platform = await Platform.open(config, logger, CONTEXT_MODULES);
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  let memEngine: ProjectionEngine | null = null;
  try {
    const history = await appendMixedHistory(platform.events, opts.events, opts.window);
    const head = await platform.events.headPosition();
    const appendRate = history.events / (history.ms / 1000);
    log(`history: ${history.events} events (${history.instances} instances, ${history.keys} api keys, 100 projects) appended in ${(history.ms / 1000).toFixed(1)} s (${Math.round(appendRate)} ev/s), head ${head}`);
    details.history = { ...history, ms: Math.round(history.ms), eventsPerSec: Math.round(appendRate), head };
    // A rebuild replays a settled history: let PostgreSQL finish what the append left (checkpoint, autovacuum).
    const quiet = await quiesce();
    log(`history settled after ${(quiet.waitedMs / 1000).toFixed(1)} s (machine busy ${quiet.busy === null ? '?' : Math.round(quiet.busy * 100) + '%'})`);

    const scan = await scanAll(platform.events, 0, head, opts.batchSize);
    const scanRate = scan.events / (scan.ms / 1000);
    log(`readAll scan: ${scan.events} events in ${(scan.ms / 1000).toFixed(2)} s (${Math.round(scanRate)} ev/s)`);

    // One pass over the log feeds every read model's in-memory fold; then each model's documents are
    // bulk-inserted into its fresh collection and the model is switched over.
    const all = await platform.projections.rebuildAll(PROJECTIONS.map((p) => p.name), { batchSize: opts.batchSize });
    const totalRate = history.events / (all.ms / 1000);
    for (const r of all.projections) log(`  ${r.projection}: ${r.docs} docs; write calls took ${(r.insertMs / 1000).toFixed(2)} s in all; ${r.reloaded} read back`);
    log(`rebuild of all ${all.projections.length} read models -> ${platform.reads.kind} in one pass: ${(all.ms / 1000).toFixed(1)} s (log pass with overlapping writes ${(all.passMs / 1000).toFixed(1)} s, remaining writes + indexes ${(all.insertMs / 1000).toFixed(1)} s, indexes alone ${(all.indexMs / 1000).toFixed(1)} s), ${Math.round(totalRate)} history ev/s`);
    details.rebuildAll = { scan: { ...scan, eventsPerSec: Math.round(scanRate) }, totalMs: Math.round(all.ms), passMs: Math.round(all.passMs), afterPassMs: Math.round(all.insertMs), indexMs: Math.round(all.indexMs), historyEventsPerSec: Math.round(totalRate), projections: all.projections.map((r) => ({ projection: r.projection, docs: r.docs, writeMs: Math.round(r.insertMs), reloaded: r.reloaded })) };

    // The ceiling the read store alone sets: the rebuilt documents (a sample of each large model,
    // read back) bulk-inserted into a scratch database exactly as the fold writes them (1,000 per
    // call, 3 writers), with the machine otherwise idle. Reading the log, folding and the index
    // builds are not counted, so the real ceiling is lower still.
    const big = all.projections.filter((r) => r.docs > 1000);
    const capacity = await insertCapacity(platform, opts.engines.mongoUrl, `bench_cap_${id}`, big.map((r) => r.projection));
    const insertSeconds = big.reduce((sum, r) => sum + r.docs / capacity[r.projection], 0);
    const ceiling = history.events / insertSeconds;
    log(`c4 ceiling: ${big.map((r) => `${r.projection} ${Math.round(capacity[r.projection])} docs/s`).join(', ')} (bulk inserts alone) -> inserting the ${big.reduce((a, r) => a + r.docs, 0)} documents takes ${insertSeconds.toFixed(1)} s: at most ${Math.round(ceiling)} history ev/s`);
    details.c4Ceiling = { capacity, insertSeconds, ceiling };

    const k = Math.round(history.events / 1000);
    rows.push(
      row({ item: 'c4', metric: `rebuild all ${all.projections.length} read models -> FerretDB (${k}k ev history)`, unit: 'events/s', value: totalRate, baselineName: 'readAll scan', baseline: scanRate, target: 20_000, targetKind: 'absolute', note: 'history events / wall time of one rebuildAll (one log pass)' }),
      row({ item: 'c4', metric: '  read-store ceiling (bulk inserts of the rebuilt documents alone)', unit: 'events/s', value: ceiling, baselineName: 'rebuild', baseline: totalRate, target: null, targetKind: null }),
      ...all.projections
        .filter((r) => r.docs > 1000)
        .map((r) => row({ item: 'c4', metric: `  write ${r.projection} (${r.docs} docs; summed write-call time)`, unit: 'docs/s', value: r.docs / (r.insertMs / 1000), baselineName: '-', baseline: null, target: null, targetKind: null })),
    );

    if (opts.memory) {
      const mem = new MemoryReadStore();
      memEngine = new ProjectionEngine(platform.events, mem, new ReadStoreCheckpointStore(mem), PROJECTIONS);
      const memMs = (await memEngine.rebuildAll(PROJECTIONS.map((p) => p.name), { batchSize: opts.batchSize })).ms;
      await memEngine.stop();
      const memRate = history.events / (memMs / 1000);
      log(`rebuild of all read models -> memory: ${(memMs / 1000).toFixed(1)} s, ${Math.round(memRate)} history ev/s`);
      details.rebuildAllMemory = { totalMs: Math.round(memMs), historyEventsPerSec: Math.round(memRate) };
      rows.push(row({ item: 'c4', metric: `rebuild all ${PROJECTIONS.length} read models -> memory (${k}k ev)`, unit: 'events/s', value: memRate, baselineName: 'readAll scan', baseline: scanRate, target: 20_000, targetKind: 'absolute' }));
    }
  } finally {
    await memEngine?.stop().catch(() => undefined);
    await platform.close().catch((err) => log(`platform close failed: ${String(err)}`));
    logger.flush();
    await cleanup(opts.engines, `bench_cmp_${id}`, `bench_cmp_${id}`);
    await deleteTopics(opts.engines.kafkaBrokers, `benchc${id}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, details };
}

/**
 * Bulk-insert rate of each model's documents into FerretDB with nothing else running: a sample of up
 * to 5,000 rebuilt documents per model, inserted under fresh ids in calls of 1,000 by 3 writers (the
 * WriteBehindFold defaults) for about 5 s, into a scratch database with the model's indexes built
 * afterwards excluded (the rebuild also builds them after its load).
 */
async function insertCapacity(platform: Platform, mongoUrl: string, dbName: string, models: string[]): Promise<Record<string, number>> {
  const store = await MongoReadStore.connect(mongoUrl, dbName);
  const out: Record<string, number> = {};
  try {
    for (const name of models) {
      const projection = PROJECTIONS.find((p) => p.name === name)!;
      const sample = (await (await platform.projections.collection(projection)).find({ limit: 5000, withTotal: false })).items;
      if (sample.length === 0) continue;
      const coll = store.collection(`cap_${name}`);
      let round = 0;
      let inserted = 0;
      const end = performance.now() + 5000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 3 }, async () => {
          while (performance.now() < end) {
            const r = round++;
            const chunk = Array.from({ length: 1000 }, (_, i) => ({ ...sample[(r * 1000 + i) % sample.length], id: `cap-${r}-${i}` }));
            await coll.write(chunk.map((doc) => ({ kind: 'put' as const, doc, isNew: true })));
            inserted += chunk.length;
          }
        }),
      );
      out[name] = inserted / ((performance.now() - started) / 1000);
    }
  } finally {
    await store.dropDatabase().catch(() => undefined);
    await store.close();
  }
  return out;
}
