/**
 * Group "compute" (BENCH_ONLY=compute): the instance API on the server profile (PostgreSQL events,
 * FerretDB read models, Redis rate limiter with raised limits, Kafka relay), zero-latency simulator.
 *
 *  c1  POST /v1/instances accepted req/s and p99 (includes the read-your-writes wait for the instance
 *      and for the job the dispatcher creates), against a bare Fastify HTTPS route appending one event
 *      of the same payload to the same event store (a type no projection or saga reacts to).
 *  c2  GET /v1/instances?limit=20&sort=-createdAt with 10,000 instances in the project's read model,
 *      against a bare Fastify HTTPS route running the same query (filter, sort, limit + count) on the
 *      same collection and serialising with the same `instanceResource`.
 *  c3  POST /v1/instances -> its job `completed` (GET /v1/jobs/{id} every 10 ms), sequential creates.
 *  c4  see history.bench.ts (rebuild of every read model from a 1M-event history).
 *
 * The 10k instances of c2 are appended directly as `compute.InstanceRequested.v1` events (a copy of
 * the event the API wrote for a real create, with new ids / names / times) while the server is down;
 * the job dispatcher's checkpoint is then moved past them (otherwise 10k create jobs would run and
 * update 20k documents, which FerretDB does at a few hundred per second), and the server restarts:
 * the instances projection inserts the 10k documents on its live path.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { Platform } from '../libs/runtime/src/platform';
import { CONTEXT_MODULES } from '../contexts/registrations';
import { instanceResource } from '../apps/api/src/instances/instance-view';
import { loadConfig, type AppConfig } from '../libs/config/src/config';
import { REDACT_PATHS } from '../libs/http/src/logging';
import type { EventStore, NewEvent, RecordedEvent } from '../libs/eventstore/src/event-store.port';
import { instanceStream } from '../libs/domain/compute/instance.events';
import { MongoReadCollection, MongoReadStore } from '../libs/readstore/src/mongo-read-store';
import type { FindQuery, ReadDoc, WriteOp } from '../libs/readstore/src/read-store.port';
import { ReadStoreCheckpointStore } from '../libs/subscriptions/src/checkpoint-store';
import { instancesProjection, type InstanceDoc } from '../projections/instances/instances.projection';
import { jobsProjection } from '../projections/jobs/jobs.projection';
import { runLoad, type LoadResult } from './http-load';
import { cleanup } from './http.bench';
import { cpuDelta, cpuSnapshot, log, percentile, row, shortId, type Engines, type Row } from './lib';

export interface ComputeBenchOptions {
  engines: Engines;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  /** Instances in the listed project (c2). */
  listInstances: number;
  /** Sequential creates timed to job completion (c3). */
  latencyCreates: number;
  /** Items to measure (BENCH_COMPUTE_ITEMS, default all): the seed runs either way, so c1 meets the same read model. */
  items?: Set<string>;
}

const HIGH = String(10_000_000);
const DISPATCHER = 'saga:job-dispatcher';
const FANOUT = 'saga:batch-fanout';

type MeasuredLoad = LoadResult & { cpuSeconds: Record<string, number> };

async function measure(spec: Parameters<typeof runLoad>[0]): Promise<MeasuredLoad> {
  const before = cpuSnapshot();
  const r = await runLoad(spec);
  const cpuSeconds = cpuDelta(before, cpuSnapshot());
  if (cpuSeconds['other node'] !== undefined) cpuSeconds['other node (incl. load generator)'] = cpuSeconds['other node'];
  delete cpuSeconds['other node'];
  return { ...r, cpuSeconds };
}

function describe(name: string, r: MeasuredLoad): string {
  return `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ${r.requests} requests, ${r.errors} errors ${JSON.stringify(r.statuses)}${r.firstError ? ` first error: ${r.firstError}` : ''}; CPU s: ${JSON.stringify(r.cpuSeconds)} (load generator ${r.clientCpuSeconds})`;
}

/** Minimal keep-alive HTTPS JSON client of the bench process (self-signed certificate). */
function apiClient(baseUrl: string, apiKey: string) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false });
  const u = new URL(baseUrl);
  const call = (method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { 'x-service-api-key': apiKey, accept: 'application/json' };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
        headers['idempotency-key'] = randomUUID();
      }
      const req = https.request({ agent, method, hostname: u.hostname, port: u.port, path: p, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { call, close: () => agent.destroy() };
}

export function serverConfig(e: Engines, id: string, dataDir: string, extra: Record<string, string> = {}): AppConfig {
  return loadConfig(
    {},
    {
      PROFILE: 'server',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      PG_URL: e.pgUrl,
      PG_SCHEMA: `bench_cmp_${id}`,
      MONGO_URL: e.mongoUrl,
      MONGO_DB: `bench_cmp_${id}`,
      REDIS_URL: e.redisUrl,
      KAFKA_BROKERS: e.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: `benchc${id}`,
      RATE_LIMIT_PROJECT_PER_MIN: HIGH,
      RATE_LIMIT_KEY_PER_MIN: HIGH,
      RATE_LIMIT_IP_PER_MIN: HIGH,
      SIMULATOR_LATENCY: 'zero',
      ...extra,
    },
  );
}

/** Deletes the Kafka topics of one bench run (those whose name starts with `prefix`). */
export async function deleteTopics(brokers: string, prefix: string): Promise<void> {
  const admin = new Kafka({ clientId: 'bench-cleanup', brokers: brokers.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 2000, retry: { retries: 1 } }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } catch (err) {
    log(`cleanup of Kafka topics ${prefix}* failed: ${String(err)}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Appends `count` copies of a real InstanceRequested event into `projectId`, 2,000 concurrent appends at a time (group-committed). */
async function seedInstances(store: EventStore, template: RecordedEvent, projectId: string, count: number): Promise<{ events: number; ms: number }> {
  const started = performance.now();
  const t0 = Date.parse('2025-06-01T00:00:00Z');
  const group = 2000;
  for (let from = 0; from < count; from += group) {
    await Promise.all(
      Array.from({ length: Math.min(group, count - from) }, (_, k) => {
        const i = from + k;
        const instanceId = uuidv7();
        const name = `seed-${i}`;
        const data = { ...template.data, projectId, instanceId, jobId: uuidv7(), name, hostname: `${name}.${String(template.data.region)}`, requestedAt: new Date(t0 + i * 1000).toISOString() };
        const event: NewEvent = { id: uuidv7(), type: template.type, data, metadata: { ...template.metadata, projectId, requestId: randomUUID(), correlationId: randomUUID() } };
        return store.append(instanceStream(instanceId), [event], { expectedRevision: 'no_stream' });
      }),
    );
  }
  return { events: count, ms: performance.now() - started };
}

export async function benchCompute(opts: ComputeBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const id = shortId();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-cmp-'));
  const config = serverConfig(opts.engines, id, dataDir);
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false }));
  const ctx = { metadata: { actor: 'system:bench' } };
  let server: RunningServer | null = null;
  let pre: Platform | null = null;
  let baseline: ReturnType<typeof Fastify> | null = null;
  let baselineStore: MongoReadStore | null = null;
  let api: ReturnType<typeof apiClient> | null = null;
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  try {
    // 1. First start: bootstrap, a provider, one real create (the template of the seeded events).
    server = await startServer(config, logger);
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { projectId: string; apiKey: string };
    api = apiClient(server.url, boot.apiKey);
    const provider = await api.call('POST', '/v1/providers', { name: 'provider_publiccloud', apiKey: 'x' });
    if (provider.status !== 201) throw new Error(`POST /v1/providers: ${provider.status} ${JSON.stringify(provider.body).slice(0, 300)}`);
    const providerId = provider.body.data.id as string;
    const createBody = { providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' };
    const first = await api.call('POST', '/v1/instances', { ...createBody, name: 'template' });
    if (first.status !== 202) throw new Error(`POST /v1/instances: ${first.status} ${JSON.stringify(first.body).slice(0, 300)}`);
    const template = (await server.platform.events.readStream(instanceStream(first.body.data.id as string)))[0];
    api.close();
    api = null;
    await server.close();
    server = null;

    // 2. Server down: seed the listed project, move the sagas that react to InstanceRequested past it.
    const listProject = uuidv7();
    pre = await Platform.open(config, logger, CONTEXT_MODULES);
    const seeded = await seedInstances(pre.events, template, listProject, opts.listInstances);
    const head = await pre.events.headPosition();
    const checkpoints = new ReadStoreCheckpointStore(pre.reads);
    for (const saga of [DISPATCHER, FANOUT]) await checkpoints.save(saga, Math.max(head, await checkpoints.load(saga)));
    await pre.close();
    pre = null;
    log(`seed: ${seeded.events} InstanceRequested events appended in ${(seeded.ms / 1000).toFixed(1)} s (${Math.round(seeded.events / (seeded.ms / 1000))} ev/s)`);

    // 3. Restart; the instances projection inserts the seeded documents.
    const restartAt = performance.now();
    server = await startServer(config, logger);
    if (!(await server.platform.projections.runner('instances').waitFor(head, 300_000))) throw new Error('instances projection did not catch up with the seeded events within 300 s');
    const catchUpMs = performance.now() - restartAt;
    const instColl = await server.platform.projections.collection(instancesProjection);
    const listed = (await instColl.find({ filter: { projectId: listProject }, limit: 0 })).total;
    log(`seed: restart + instances projection caught up in ${(catchUpMs / 1000).toFixed(1)} s; ${listed} instance documents in the listed project`);
    if (listed !== opts.listInstances) log(`WARNING: expected ${opts.listInstances} seeded instance documents, got ${listed}`);
    details.seed = { instances: opts.listInstances, docs: listed, appendMs: Math.round(seeded.ms), restartAndProjectMs: Math.round(catchUpMs) };
    // A live key: the seeded documents are the project's live scope (its bare id).
    const listKey = await server.identity.issueKey({ projectId: listProject, name: 'bench-list', role: 'owner', expiresAt: null, mode: 'live' }, ctx);

    const items = opts.items ?? new Set(['c1', 'c2', 'c3']);
    const tls = { key: fs.readFileSync(path.join(dataDir, 'tls', 'key.pem')), cert: fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem')) };
    // c2: GET through the API, then the bare Fastify baseline on the same collection.
    if (items.has('c2')) {
      const listPath = '/v1/instances?limit=20&sort=-createdAt';
      const get = await measure({ url: `${server.url}${listPath}`, method: 'GET', headers: { 'x-service-api-key': listKey.key, accept: 'application/json' }, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });
      log(describe('API GET /v1/instances', get));
      details.apiListGet = get;

      const physical = await server.platform.projections.catalog.resolve(instancesProjection as never);
      baselineStore = await MongoReadStore.connect(opts.engines.mongoUrl, `bench_cmp_${id}`);
      const coll = baselineStore.collection<InstanceDoc>(physical);
      const query: FindQuery = { filter: { projectId: listProject, status: { $ne: 'terminated' } }, sort: [{ field: 'createdAt', direction: -1 }], skip: 0, limit: 20 };
      baseline = Fastify({ https: tls, logger: false });
      baseline.get('/v1/instances', async () => {
        const { items, total } = await coll.find(query);
        return { data: items.map((d) => instanceResource(d)), meta: { total } };
      });
      await baseline.listen({ port: 0, host: '127.0.0.1' });
      const basePort = (baseline.server.address() as { port: number }).port;
      const baseGet = await measure({ url: `https://127.0.0.1:${basePort}${listPath}`, method: 'GET', headers: { accept: 'application/json' }, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });
      log(describe('bare Fastify + same find', baseGet));
      details.baselineListGet = baseGet;
      rows.push(
        row({ item: 'c2', metric: `GET /v1/instances?limit=20&sort=-createdAt (${Math.round(listed / 1000)}k inst), ${opts.concurrency} conns`, unit: 'req/s', value: get.rps, baselineName: 'bare Fastify+find', baseline: baseGet.rps, target: 0.6, targetKind: 'ratio' }),
        row({ item: 'c2', metric: 'GET /v1/instances p99', unit: 'ms', value: get.p99Ms, baselineName: 'bare Fastify+find', baseline: baseGet.p99Ms, target: null, targetKind: null, lowerIsBetter: true }),
      );
      await baseline.close();
      baseline = null;
    }

    // c1 baseline: bare Fastify HTTPS route appending one event with the create's payload to the same event store.
    const events = server.platform.events;
    baseline = Fastify({ https: tls, logger: false });
    baseline.post('/v1/instances', async (req: FastifyRequest, reply: FastifyReply) => {
      const body = req.body as Record<string, unknown>;
      const instanceId = uuidv7();
      const data = { ...template.data, ...body, projectId: boot.projectId, instanceId, jobId: uuidv7(), requestedAt: new Date().toISOString() };
      const r = await events.append(`benchbase-${instanceId}`, [{ id: uuidv7(), type: 'bench.BaselineAppend.v1', data, metadata: { projectId: boot.projectId, actor: 'apikey:bench', requestId: randomUUID(), correlationId: randomUUID(), schemaVersion: 1 } }], { expectedRevision: 'no_stream' });
      return reply.code(202).send({ data: { id: instanceId, type: 'instances', attributes: data }, position: r.position });
    });
    await baseline.listen({ port: 0, host: '127.0.0.1' });
    const appendPort = (baseline.server.address() as { port: number }).port;
    const basePost = await measure({ url: `https://127.0.0.1:${appendPort}/v1/instances`, method: 'POST', headers: { accept: 'application/json' }, postBody: createBody, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 202 });
    log(describe('bare Fastify + 1-event append', basePost));
    details.baselinePost = basePost;
    await baseline.close();
    baseline = null;
    // Let the Kafka relay drain the baseline's events before the next measurements.
    const relayHead = await events.headPosition();
    await Promise.all(server.platform.allRunners().map((r) => r.waitFor(relayHead, 15_000)));

    // c3: sequential creates, each timed until GET /v1/jobs/{id} says completed (10 ms polls).
    if (items.has('c3')) {
      api = apiClient(server.url, boot.apiKey);
      const toCompleted: number[] = [];
      const postOnly: number[] = [];
      let latencyErrors = 0;
      let firstLatencyError: string | null = null;
      for (let i = 0; i < opts.latencyCreates; i++) {
        const t0 = performance.now();
        const res = await api.call('POST', '/v1/instances', { ...createBody, name: `latency-${i}` });
        postOnly.push(performance.now() - t0);
        if (res.status !== 202) {
          // e.g. 404 when the read-your-writes wait timed out: the create was accepted but is not readable yet.
          latencyErrors++;
          firstLatencyError ??= `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
          continue;
        }
        const jobPath = `/v1/jobs/${res.body.jobId as string}`;
        for (;;) {
          const job = await api.call('GET', jobPath);
          const status = job.status === 200 ? (job.body.data.attributes.status as string) : `http ${job.status}`;
          if (status === 'completed') break;
          if (status === 'failed') throw new Error(`job ${jobPath} failed: ${JSON.stringify(job.body).slice(0, 300)}`);
          if (performance.now() - t0 > 30_000) throw new Error(`job ${jobPath} not completed after 30 s (last: ${status})`);
          await new Promise((r) => setTimeout(r, 10));
        }
        toCompleted.push(performance.now() - t0);
    }
    toCompleted.sort((a, b) => a - b);
    postOnly.sort((a, b) => a - b);
    const lat = { n: toCompleted.length, errors: latencyErrors, firstError: firstLatencyError, p50: percentile(toCompleted, 50), p90: percentile(toCompleted, 90), max: toCompleted[toCompleted.length - 1], postP50: percentile(postOnly, 50), postP90: percentile(postOnly, 90) };
    log(`create -> job completed over ${lat.n} sequential creates: median ${lat.p50.toFixed(1)} ms, p90 ${lat.p90.toFixed(1)} ms, max ${lat.max.toFixed(1)} ms (the POST alone: median ${lat.postP50.toFixed(1)} ms, p90 ${lat.postP90.toFixed(1)} ms); ${latencyErrors} creates not 202${firstLatencyError ? ` (first: ${firstLatencyError})` : ''}`);
    details.createToCompleted = lat;
    rows.push(
      row({ item: 'c3', metric: `POST /v1/instances -> job completed, median (${lat.n} seq, ${lat.errors} non-202)`, unit: 'ms', value: lat.p50, baselineName: 'the POST alone', baseline: lat.postP50, target: null, targetKind: null, lowerIsBetter: true }),
      row({ item: 'c3', metric: 'POST /v1/instances -> job completed, p90', unit: 'ms', value: lat.p90, baselineName: 'the POST alone', baseline: lat.postP90, target: null, targetKind: null, lowerIsBetter: true }),
    );
    api.close();
    api = null;
    }

    // c1: POST /v1/instances under load (creates keep the executor busy in the background too).
    // The read-model writes the creates cause are counted (the API runs in this process).
    const writes = countReadModelWrites(['instances', 'jobs']);
    let post: MeasuredLoad;
    let counted: ReturnType<typeof writes.stop>;
    try {
      post = await measure({ url: `${server.url}/v1/instances`, method: 'POST', headers: { 'x-service-api-key': boot.apiKey, accept: 'application/json' }, postBody: createBody, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 202 });
      // The jobs of the run finish before the count ends: their last writes belong to their creates.
      const jobs = await server.platform.projections.collection(jobsProjection);
      const deadline = Date.now() + 120_000;
      while ((await jobs.find({ filter: { status: 'pending' }, limit: 1 })).total + (await jobs.find({ filter: { status: 'processing' }, limit: 1 })).total > 0) {
        if (Date.now() > deadline) throw new Error('jobs of the c1 run still open after 120 s');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      counted = writes.stop();
    }
    log(describe('API POST /v1/instances', post));
    details.apiPost = post;
    rows.push(
      row({ item: 'c1', metric: `POST /v1/instances, ${opts.concurrency} conns`, unit: 'req/s', value: post.rps, baselineName: 'bare Fastify+1-event append', baseline: basePost.rps, target: 1000, targetKind: 'absolute' }),
      row({ item: 'c1', metric: 'POST /v1/instances p99', unit: 'ms', value: post.p99Ms, baselineName: 'bare Fastify+1-event append', baseline: basePost.p99Ms, target: 50, targetKind: 'atMost', lowerIsBetter: true }),
    );

    // c1's ceiling from the read store alone: the document writes each create causes (counted above,
    // warm-up included; a create is one instance inserted) times what FerretDB sustains for the same
    // kinds of writes with the whole machine to itself. Nothing else a create costs is counted, so
    // the real ceiling is lower still.
    const creates = counted.instances.inserts;
    const perCreate = { inserts: (counted.instances.inserts + counted.jobs.inserts) / creates, updates: (counted.instances.updates + counted.jobs.updates) / creates };
    const capacity = await readStoreCapacity(opts.engines.mongoUrl, `bench_cap_${id}`, template, opts.concurrency, Math.min(opts.durationMs, 5000));
    const secondsPerCreate = perCreate.inserts / capacity.insertsPerSec + perCreate.updates / capacity.updatesPerSec;
    const ceiling = 1 / secondsPerCreate;
    log(`c1 ceiling: ${perCreate.inserts.toFixed(2)} inserts + ${perCreate.updates.toFixed(2)} updates of read-model documents per create (${creates} creates); FerretDB alone: ${Math.round(capacity.insertsPerSec)} inserts/s, ${Math.round(capacity.updatesPerSec)} updates/s by id (${opts.concurrency} conns) -> at most ${Math.round(ceiling)} creates/s`);
    details.c1Ceiling = { creates, writes: counted, perCreate, capacity, ceiling };
    rows.push(
      row({ item: 'c1', metric: `  read-store ceiling (${perCreate.inserts.toFixed(1)} ins + ${perCreate.updates.toFixed(1)} upd per create)`, unit: 'creates/s', value: ceiling, baselineName: 'POST /v1/instances', baseline: post.rps, target: null, targetKind: null }),
    );

  } finally {
    api?.close();
    await baseline?.close().catch(() => undefined);
    await baselineStore?.close().catch(() => undefined);
    await pre?.close().catch(() => undefined);
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    logger.flush();
    await cleanup(opts.engines, `bench_cmp_${id}`, `bench_cmp_${id}`);
    await deleteTopics(opts.engines.kafkaBrokers, `benchc${id}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, details };
}

/** Counts the document writes of the named read models (physical names `<model>_v…`) until `stop()`. */
function countReadModelWrites<M extends string>(models: M[]): { stop(): Record<M, { inserts: number; updates: number; deletes: number }> } {
  const counts = Object.fromEntries(models.map((m) => [m, { inserts: 0, updates: 0, deletes: 0 }])) as Record<M, { inserts: number; updates: number; deletes: number }>;
  const write = MongoReadCollection.prototype.write;
  const spy = function (this: MongoReadCollection, ops: WriteOp<ReadDoc>[]) {
    const model = models.find((m) => this.name.startsWith(`${m}_v`));
    if (model) {
      for (const op of ops) {
        if (op.kind === 'delete') counts[model].deletes++;
        else if (op.isNew) counts[model].inserts++;
        else counts[model].updates++;
      }
    }
    return write.call(this, ops);
  };
  MongoReadCollection.prototype.write = spy as typeof write;
  return {
    stop() {
      MongoReadCollection.prototype.write = write;
      return structuredClone(counts);
    },
  };
}

/**
 * What FerretDB sustains for a create's kinds of read-model writes, alone on the machine: bulk
 * inserts of instance documents (as the projector writes them), then replacements by id of those
 * documents from `concurrency` writers, through the same read-store adapter.
 */
async function readStoreCapacity(mongoUrl: string, dbName: string, template: RecordedEvent, concurrency: number, durationMs: number): Promise<{ insertsPerSec: number; updatesPerSec: number; docs: number }> {
  const store = await MongoReadStore.connect(mongoUrl, dbName);
  try {
    const coll = store.collection<InstanceDoc>('capacity_instances');
    await coll.ensureIndexes(instancesProjection.indexes ?? []);
    const docs: InstanceDoc[] = [];
    let position = 0;
    const stopAt = () => performance.now() + durationMs;
    // Inserts: batches of 50 (what a busy projector batch holds), `concurrency` writers.
    let end = stopAt();
    const insertStarted = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const batch: InstanceDoc[] = [];
          for (let i = 0; i < 50; i++) {
            const instanceId = uuidv7();
            const doc = instancesProjection.evolve(null, { ...template, position: ++position, data: { ...template.data, instanceId, jobId: uuidv7(), name: `cap-${position}` } })!;
            batch.push(doc);
          }
          await coll.write(batch.map((doc) => ({ kind: 'put', doc, isNew: true })));
          docs.push(...batch);
        }
      }),
    );
    const insertsPerSec = docs.length / ((performance.now() - insertStarted) / 1000);
    // Updates: one document per write call, as a projector batch with one change.
    let updates = 0;
    end = stopAt();
    const updateStarted = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        for (let i = w; performance.now() < end; i += concurrency) {
          const doc = docs[i % docs.length];
          await coll.write([{ kind: 'put', doc: { ...doc, status: 'active', _position: ++position, updatedAt: new Date().toISOString() }, isNew: false }]);
          updates++;
        }
      }),
    );
    const updatesPerSec = updates / ((performance.now() - updateStarted) / 1000);
    return { insertsPerSec, updatesPerSec, docs: docs.length };
  } finally {
    await store.dropDatabase?.().catch(() => undefined);
    await store.close();
  }
}
