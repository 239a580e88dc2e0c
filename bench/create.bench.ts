/**
 * Group "create" (BENCH_ONLY=create): `POST /v1/instances` on the embedded profile (PGlite event
 * store, in-memory read store, zero-latency simulator) at each of BENCH_CREATE_CONCURRENCY (default
 * 16,32) connections, each beside a baseline measured right after it at the same concurrency: a
 * bare Fastify HTTPS route appending one event with the create's payload to a PGlite event store of
 * its own (same engine, same group commit, nothing else).
 *
 * A create through the API also validates against the catalog and provider, waits for the instances
 * read model and for the job the dispatcher creates (read-your-writes), while the executor runs the
 * job in the same process: the gap to the baseline is that work, on the same two cores.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { SqlEventStore } from '../libs/eventstore/src/sql/sql-event-store';
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
  const details: Record<string, unknown> = { runs: [] as unknown[] };
  try {
    server = await startServer(loadConfig({}, env), logger);
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
      const api = await runLoad({ ...load, url: `${server.url}/v1/instances`, headers });
      log(describe(`API POST /v1/instances (${concurrency} conns)`, api));
      await settle(server);
      const base = await runLoad({ ...load, url: `https://127.0.0.1:${basePort}/v1/instances`, headers: { accept: 'application/json' } });
      log(describe(`bare Fastify + 1-event PGlite append (${concurrency} conns)`, base));
      // The same load without Idempotency-Key: what the durable key record (begin, commit mark, stored answer) costs.
      await settle(server);
      const keyless = await runLoad({ ...load, url: `${server.url}/v1/instances`, headers, idempotencyKey: false });
      log(describe(`API POST /v1/instances without Idempotency-Key (${concurrency} conns)`, keyless));
      (details.runs as unknown[]).push({ concurrency, api, keyless, baseline: base });
      rows.push(
        row({ item: 'e1', metric: `POST /v1/instances, embedded, ${concurrency} conns`, unit: 'req/s', value: api.rps, baselineName: 'bare Fastify+PGlite append', baseline: base.rps, target: null, targetKind: null }),
        row({ item: 'e1', metric: `POST /v1/instances p99, embedded, ${concurrency} conns`, unit: 'ms', value: api.p99Ms, baselineName: 'bare Fastify+PGlite append', baseline: base.p99Ms, target: null, targetKind: null, lowerIsBetter: true }),
        row({ item: 'e1', metric: `  same without Idempotency-Key, ${concurrency} conns`, unit: 'req/s', value: keyless.rps, baselineName: 'with the key', baseline: api.rps, target: null, targetKind: null }),
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

async function fetchJson(url: string, apiKey: string, body: unknown): Promise<any> {
  const https = await import('node:https');
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = https.request({ method: 'POST', hostname: u.hostname, port: u.port, path: u.pathname, rejectUnauthorized: false, headers: { 'x-service-api-key': apiKey, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`POST ${url}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
