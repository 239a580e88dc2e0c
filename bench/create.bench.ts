/**
 * Group "create" (BENCH_ONLY=create): `POST /v1/instances` on the embedded profile (PGlite event
 * store, in-memory read store, zero-latency simulator) at each of BENCH_CREATE_CONCURRENCY (default
 * 16,32) connections, each beside a baseline measured right after it at the same concurrency: a
 * bare Fastify HTTPS route appending one event with the create's payload to a PGlite event store of
 * its own (same engine, same group commit, nothing else).
 *
 * A create through the API also validates against the catalog and provider, appends its request with
 * its job, waits for the instances and jobs read models (read-your-writes), while the executor runs
 * the job in the same process: the gap to the baseline is that work, on the same two cores.
 *
 * Where a create's time goes (issue 25): from the start of a run until its jobs have finished, the
 * bench counts per create (per InstanceRequested appended) the appends (calls of the store's append
 * or appendMany), the SQL transactions and statements, the read-model writes (batches and documents)
 * and checkpoint saves, the subscription wake-ups, and the server process's CPU; and the event loop's
 * delay p99 while the load runs. The load generator runs in a child process, so none of it is its.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { CatchUpSubscription } from '../libs/eventstore/src/catch-up-subscription';
import type { NewEvent, StreamAppend } from '../libs/eventstore/src/event-store.port';
import { SqlEventStore } from '../libs/eventstore/src/sql/sql-event-store';
import type { ReadStore, WriteOp } from '../libs/readstore/src/read-store.port';
import { REDACT_PATHS } from '../libs/http/src/logging';
import { jobsProjection } from '../projections/jobs/jobs.projection';
import { runLoad, type LoadResult } from './http-load';
import { log, row, type Row } from './lib';

export interface CreateBenchOptions {
  concurrencies: number[];
  durationMs: number;
  warmupMs: number;
}

const HIGH = String(10_000_000);

const describe = (name: string, r: LoadResult) =>
  `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ${r.requests} requests, ${r.errors} errors ${JSON.stringify(r.statuses)}${r.firstError ? ` first error: ${r.firstError}` : ''}`;

export async function benchCreate(opts: CreateBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-create-'));
  const env = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', EVENT_STORE: 'pglite', READ_STORE: 'memory', SIMULATOR_LATENCY: 'zero', RATE_LIMIT_PROJECT_PER_MIN: HIGH, RATE_LIMIT_KEY_PER_MIN: HIGH, RATE_LIMIT_IP_PER_MIN: HIGH };
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false }));
  let server: RunningServer | null = null;
  let baseStore: SqlEventStore | null = null;
  let baseline: ReturnType<typeof Fastify> | null = null;
  const rows: Row[] = [];
  const details: Record<string, unknown> = { runs: [] as unknown[], perOperation: {} };
  try {
    server = await startServer(loadConfig({}, env), logger);
    const counters = instrument(server);
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { projectId: string; apiKey: string };
    const headers = { 'x-service-api-key': boot.apiKey, accept: 'application/json' };
    const provider = await fetchJson(`${server.url}/v1/providers`, boot.apiKey, { name: 'provider_publiccloud', apiKey: 'x' });
    const createBody = { providerId: provider.data.id as string, region: 'us-east-1', instanceType: 'pc-t3-medium' };

    baseStore = await SqlEventStore.pglite(path.join(dataDir, 'baseline-eventstore'));
    const store = baseStore;
    const tls = { key: fs.readFileSync(path.join(dataDir, 'tls', 'key.pem')), cert: fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem')) };
    baseline = Fastify({ https: tls, logger: false });
    baseline.post('/v1/instances', async (req: FastifyRequest, reply: FastifyReply) => {
      const instanceId = uuidv7();
      const data = { ...(req.body as Record<string, unknown>), projectId: boot.projectId, instanceId, jobId: uuidv7(), requestedAt: new Date().toISOString() };
      const metadata = { projectId: boot.projectId, actor: 'apikey:bench', requestId: randomUUID(), correlationId: randomUUID(), schemaVersion: 1 };
      const r = await store.append(`instance-${instanceId}`, [{ id: uuidv7(), type: 'compute.InstanceRequested.v1', data, metadata }], { expectedRevision: 'no_stream' });
      return reply.code(202).send({ data: { id: instanceId, type: 'instances', attributes: data }, position: r.position });
    });
    await baseline.listen({ port: 0, host: '127.0.0.1' });
    const basePort = (baseline.server.address() as { port: number }).port;

    for (const concurrency of opts.concurrencies) {
      const load = { method: 'POST' as const, postBody: createBody, concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 202 };
      const counted = counters.start();
      const api = await runLoad({ ...load, url: `${server.url}/v1/instances`, headers });
      const loopP99Ms = counted.loopP99Ms();
      log(describe(`API POST /v1/instances (${concurrency} conns)`, api));
      await settle(server);
      const perCreate = counted.perCreate();
      log(`  per create (${concurrency} conns, ${perCreate.creates} creates incl. warm-up, until their jobs finished): ${describeCounts(perCreate)}; event-loop delay p99 ${loopP99Ms.toFixed(1)} ms`);
      const base = await runLoad({ ...load, url: `https://127.0.0.1:${basePort}/v1/instances`, headers: { accept: 'application/json' } });
      log(describe(`bare Fastify + 1-event PGlite append (${concurrency} conns)`, base));
      // The same load without Idempotency-Key: what the durable key record (begin, commit mark, stored answer) costs.
      await settle(server);
      const keyless = await runLoad({ ...load, url: `${server.url}/v1/instances`, headers, idempotencyKey: false });
      log(describe(`API POST /v1/instances without Idempotency-Key (${concurrency} conns)`, keyless));
      (details.runs as unknown[]).push({ concurrency, api, keyless, baseline: base, perCreate, loopP99Ms });
      rows.push(
        row({ item: 'e1', metric: `POST /v1/instances, embedded, ${concurrency} conns`, unit: 'req/s', value: api.rps, baselineName: 'bare Fastify+PGlite append', baseline: base.rps, target: null, targetKind: null }),
        row({ item: 'e1', metric: `POST /v1/instances p99, embedded, ${concurrency} conns`, unit: 'ms', value: api.p99Ms, baselineName: 'bare Fastify+PGlite append', baseline: base.p99Ms, target: null, targetKind: null, lowerIsBetter: true }),
        row({ item: 'e1', metric: `  same without Idempotency-Key, ${concurrency} conns`, unit: 'req/s', value: keyless.rps, baselineName: 'with the key', baseline: api.rps, target: null, targetKind: null }),
        row({ item: 'e1', metric: `  event-loop delay p99 under the create load, ${concurrency} conns`, unit: 'ms', value: loopP99Ms, baselineName: '', baseline: null, target: null, targetKind: null, lowerIsBetter: true }),
        ...(['appends', 'transactions', 'statements', 'readModelWrites', 'readModelDocs', 'checkpointSaves', 'wakeUps', 'cpuMs'] as const).map((k) =>
          row({ item: 'e1', metric: `  per create: ${COUNT_NAMES[k]}, ${concurrency} conns`, unit: k === 'cpuMs' ? 'ms' : 'n', value: perCreate[k], baselineName: '', baseline: null, target: null, targetKind: null, lowerIsBetter: true }),
        ),
      );
    }
    // Per instance action and per server create (sequential, each with an Idempotency-Key, until
    // their jobs finished): the same counts, so a reader sees what each write costs beside a create.
    const ops = Number(process.env.BENCH_CREATE_OPS ?? 20);
    await settle(server);
    const active = (await (await fetchJsonAs('GET', `${server.url}/v1/instances?limit=${ops}&status=active`, boot.apiKey)).data) as Array<{ id: string }>;
    for (const [name, run] of [
      ['instance action (stop)', (i: number) => fetchJsonAs('POST', `${server!.url}/v1/instances/${active[i].id}/actions`, boot.apiKey, { action: 'stop' }, 202)],
      ['server create', (_: number) => fetchJsonAs('POST', `${server!.url}/v1/servers`, boot.apiKey, { name: 'db', hostname: 'db.example.com', site: 'NYC', plan: 'c3-medium-x86', operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' }, 201)],
    ] as const) {
      const n = name === 'server create' ? ops : Math.min(ops, active.length);
      const counted = counters.start();
      for (let i = 0; i < n; i++) await run(i);
      await settle(server);
      const per = counted.perCreate(n);
      log(`  per ${name} (${n}, one at a time, until their jobs finished): ${describeCounts(per)}`);
      (details.perOperation as Record<string, unknown>)[name] = per;
      rows.push(
        ...(['appends', 'transactions', 'statements'] as const).map((k) =>
          row({ item: 'e1', metric: `  per ${name}: ${COUNT_NAMES[k]}`, unit: 'n', value: per[k], baselineName: '', baseline: null, target: null, targetKind: null, lowerIsBetter: true }),
        ),
      );
    }
  } finally {
    await baseline?.close().catch(() => undefined);
    await baseStore?.close().catch(() => undefined);
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    logger.flush();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, details };
}

const COUNT_NAMES = {
  appends: 'appends',
  transactions: 'SQL transactions',
  statements: 'SQL statements',
  readModelWrites: 'read-model writes (batches)',
  readModelDocs: 'read-model documents written',
  checkpointSaves: 'checkpoint saves',
  wakeUps: 'subscription wake-ups',
  cpuMs: 'server CPU',
} as const;
type Counts = Record<keyof typeof COUNT_NAMES, number>;

const describeCounts = (c: Counts & { creates: number }) =>
  (Object.keys(COUNT_NAMES) as (keyof typeof COUNT_NAMES)[]).map((k) => `${COUNT_NAMES[k]} ${k === 'cpuMs' ? c[k].toFixed(1) + ' ms' : c[k].toFixed(2)}`).join(', ');

/**
 * Counters on the running server's engines (its event store, SQL client, read store, subscriptions):
 * wrappers installed once, read as differences over a run.
 */
function instrument(server: RunningServer) {
  const totals: Omit<Counts, 'cpuMs'> & { creates: number } = { appends: 0, transactions: 0, statements: 0, readModelWrites: 0, readModelDocs: 0, checkpointSaves: 0, wakeUps: 0, creates: 0 };
  const events = server.platform.events as SqlEventStore;
  const appendMany = events.appendMany.bind(events);
  events.appendMany = (appends: StreamAppend[], options) => {
    totals.appends++;
    totals.creates += appends.reduce((n, a) => n + a.events.filter((e: NewEvent) => e.type === 'compute.InstanceRequested.v1').length, 0);
    return appendMany(appends, options);
  };
  const sql = events.sqlClient;
  const [query, transaction, scripted] = [sql.query.bind(sql), sql.transaction.bind(sql), sql.scripted.bind(sql)];
  sql.query = ((...a: Parameters<typeof query>) => (totals.statements++, query(...a))) as typeof sql.query;
  sql.transaction = ((fn: Parameters<typeof transaction>[0]) =>
    (totals.transactions++,
    transaction((tx) => {
      const q = tx.query.bind(tx);
      tx.query = ((...a: Parameters<typeof q>) => (totals.statements++, q(...a))) as typeof tx.query;
      return fn(tx);
    }))) as typeof sql.transaction;
  // The event store's appends: a transaction of scripts (several statements per round trip).
  sql.scripted = ((fn: Parameters<typeof scripted>[0]) =>
    (totals.transactions++,
    scripted((tx) => {
      const send = tx.send.bind(tx);
      tx.send = (statements, options) => ((totals.statements += statements.length), send(statements, options));
      return fn(tx);
    }))) as typeof sql.scripted;
  const reads: ReadStore = server.platform.reads;
  const collectionProto = Object.getPrototypeOf(reads.collection('bench-probe')) as { write: (ops: WriteOp<never>[]) => Promise<void> };
  const write = collectionProto.write;
  collectionProto.write = function (this: unknown, ops: WriteOp<never>[]) {
    totals.readModelWrites++;
    totals.readModelDocs += ops.length;
    return write.call(this, ops);
  };
  const setMeta = reads.setMeta.bind(reads);
  reads.setMeta = (key, value) => (totals.checkpointSaves++, setMeta(key, value));
  const notify = CatchUpSubscription.prototype.notify;
  CatchUpSubscription.prototype.notify = function (this: CatchUpSubscription) {
    totals.wakeUps++;
    return notify.call(this);
  };
  return {
    start() {
      const from = { ...totals };
      const cpu = process.cpuUsage();
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      return {
        loopP99Ms: () => (loop.disable(), loop.percentile(99) / 1e6),
        /** Per create, or per `n` operations of another kind (`n` given). */
        perCreate: (n?: number): Counts & { creates: number } => {
          const creates = n ?? totals.creates - from.creates;
          const per = (k: keyof typeof from) => (creates > 0 ? (totals[k] - from[k]) / creates : 0);
          const used = process.cpuUsage(cpu);
          return { creates, appends: per('appends'), transactions: per('transactions'), statements: per('statements'), readModelWrites: per('readModelWrites'), readModelDocs: per('readModelDocs'), checkpointSaves: per('checkpointSaves'), wakeUps: per('wakeUps'), cpuMs: creates > 0 ? (used.user + used.system) / 1000 / creates : 0 };
        },
      };
    },
  };
}

/** The jobs a load run started finish before the next measurement (they share the two cores). */
async function settle(server: RunningServer): Promise<void> {
  const head = await server.platform.events.headPosition();
  await Promise.all(server.platform.allRunners().map((r) => r.waitFor(head, 120_000)));
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    const jobs = await server.platform.projections.collection(jobsProjection);
    const open = (await jobs.find({ filter: { status: 'pending' }, limit: 1 })).total + (await jobs.find({ filter: { status: 'processing' }, limit: 1 })).total;
    if (open === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A request (a POST with an Idempotency-Key of its own) answered `want`: its JSON body. */
async function fetchJsonAs(method: 'GET' | 'POST', url: string, apiKey: string, body?: unknown, want = 200): Promise<any> {
  const https = await import('node:https');
  const payload = body === undefined ? '' : JSON.stringify(body);
  const key = method === 'POST' ? { 'idempotency-key': randomUUID() } : {};
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = https.request({ method, hostname: u.hostname, port: u.port, path: u.pathname + u.search, rejectUnauthorized: false, headers: { 'x-service-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === want ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`${method} ${url}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const fetchJson = (url: string, apiKey: string, body: unknown) => fetchJsonAs('POST', url, apiKey, body, 201);
