/**
 * Group "list" (BENCH_ONLY=list): `GET /v1/instances?limit=20` on the embedded profile (PGlite event
 * store, in-memory read store), zero-latency simulator, with 1k and then 100k instances in the
 * listed project (BENCH_LIST_SIZES=1000,100000), each against a baseline measured right after it:
 * a bare Fastify HTTPS route running the same query (filter `projectId` + `status $ne terminated`,
 * sort -createdAt, limit 20, with the total) on the same in-memory collection and serialising with
 * the same `instanceResource`.
 *
 * The instances are copies of one instance the API created (new ids, names and creation times),
 * written straight into the instances read model of the running server: the measured GET goes
 * through the real API (auth, rate limits, validation, the read model's indexes, serialisation).
 * With the list indexes (libs/readstore/src/list-shapes.ts) a page reads O(log n + 20) entries, so
 * the 100k page should cost about what the 1k page does; a full scan and sort made it linear.
 */
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { instanceResource } from '../apps/api/src/instances/instance-view';
import { loadConfig } from '../libs/config/src/config';
import { REDACT_PATHS } from '../libs/http/src/logging';
import type { FindQuery, ReadCollection } from '../libs/readstore/src/read-store.port';
import { instancesProjection, type InstanceDoc } from '../projections/instances/instances.projection';
import { runLoad, type LoadResult } from './http-load';
import { log, row, type Row } from './lib';

export interface ListBenchOptions {
  /** Instances in the listed project at each measurement, ascending (default 1000, 100000). */
  sizes: number[];
  concurrency: number;
  durationMs: number;
  warmupMs: number;
}

const HIGH = String(10_000_000);

function describe(name: string, r: LoadResult): string {
  return `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.requests} requests, ${r.errors} errors ${JSON.stringify(r.statuses)}${r.firstError ? ` first error: ${r.firstError}` : ''} (load generator ${r.clientCpuSeconds} CPU s)`;
}

/** One JSON request to the API (self-signed certificate). */
function request(baseUrl: string, apiKey: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const u = new URL(baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { 'x-service-api-key': apiKey, accept: 'application/json' };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), 'idempotency-key': uuidv7() });
  return new Promise((resolve, reject) => {
    const req = https.request({ method, hostname: u.hostname, port: u.port, path: p, headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Writes instances `from`..`to`-1 of the listed project: copies of `template`, one second apart. */
async function seed(coll: ReadCollection<InstanceDoc>, template: InstanceDoc, from: number, to: number): Promise<void> {
  const t0 = Date.parse('2025-06-01T00:00:00Z');
  for (let start = from; start < to; start += 5000) {
    const ops = [];
    for (let i = start; i < Math.min(to, start + 5000); i++) {
      const at = new Date(t0 + i * 1000).toISOString();
      const name = `seed-${i}`;
      const doc: InstanceDoc = { ...template, id: uuidv7(), jobId: uuidv7(), name, hostname: `${name}.${template.region}`, createdAt: at, updatedAt: at };
      ops.push({ kind: 'put' as const, doc, isNew: true });
    }
    await coll.write(ops);
  }
}

export async function benchList(opts: ListBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-list-'));
  const config = loadConfig(
    {},
    {
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      EVENT_STORE: 'pglite',
      READ_STORE: 'memory',
      RATE_LIMIT_PROJECT_PER_MIN: HIGH,
      RATE_LIMIT_KEY_PER_MIN: HIGH,
      RATE_LIMIT_IP_PER_MIN: HIGH,
      SIMULATOR_LATENCY: 'zero',
    },
  );
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false }));
  let server: RunningServer | null = null;
  let baseline: ReturnType<typeof Fastify> | null = null;
  const rows: Row[] = [];
  const details: Record<string, unknown> = { sizes: opts.sizes, runs: [] as unknown[] };
  try {
    server = await startServer(config, logger);
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { projectId: string; apiKey: string };
    const call = (method: 'GET' | 'POST', p: string, body?: unknown) => request(server!.url, boot.apiKey, method, p, body);
    // One real create: the template of the seeded documents.
    const provider = await call('POST', '/v1/providers', { name: 'provider_publiccloud', apiKey: 'x' });
    if (provider.status !== 201) throw new Error(`POST /v1/providers: ${provider.status} ${JSON.stringify(provider.body).slice(0, 300)}`);
    const created = await call('POST', '/v1/instances', { providerId: provider.body.data.id, region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'template' });
    if (created.status !== 202) throw new Error(`POST /v1/instances: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const templateId = created.body.data.id as string;
    const coll = await server.platform.projections.collection(instancesProjection);
    const template = (await coll.get(templateId))!;

    const tls = { key: fs.readFileSync(path.join(dataDir, 'tls', 'key.pem')), cert: fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem')) };
    // The documents of the key's data scope (the bootstrap key is a test key: `<project>:test`), as the API lists them.
    const query: FindQuery = { filter: { projectId: template.projectId, status: { $ne: 'terminated' } }, sort: [{ field: 'createdAt', direction: -1 }], skip: 0, limit: 20 };
    baseline = Fastify({ https: tls, logger: false });
    baseline.get('/v1/instances', async () => {
      const { items, total } = await coll.find(query);
      return { data: items.map((d) => instanceResource(d)), meta: { total } };
    });
    await baseline.listen({ port: 0, host: '127.0.0.1' });
    const basePort = (baseline.server.address() as { port: number }).port;

    const listPath = '/v1/instances?limit=20';
    let have = 1;
    const p50s: Record<number, number> = {};
    for (const size of opts.sizes) {
      const t = performance.now();
      await seed(coll, template, have - 1, size - 1);
      have = size;
      const total = (await coll.find({ filter: query.filter, limit: 0 })).total;
      log(`list: ${total} instances in the project (seeded in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
      const api = await runLoad({ url: `${server.url}${listPath}`, method: 'GET', headers: { 'x-service-api-key': boot.apiKey, accept: 'application/json' }, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });
      log(describe(`API GET ${listPath} (${total})`, api));
      const base = await runLoad({ url: `https://127.0.0.1:${basePort}${listPath}`, method: 'GET', headers: { accept: 'application/json' }, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });
      log(describe(`bare Fastify + same in-memory find (${total})`, base));
      p50s[size] = api.p50Ms;
      (details.runs as unknown[]).push({ instances: total, api, baseline: base });
      const k = total >= 1000 ? `${Math.round(total / 1000)}k` : String(total);
      rows.push(
        row({ item: 'l1', metric: `GET ${listPath}, embedded (${k} inst), ${opts.concurrency} conns`, unit: 'req/s', value: api.rps, baselineName: 'bare Fastify+same find', baseline: base.rps, target: null, targetKind: null }),
        row({ item: 'l1', metric: `GET ${listPath} p50 (${k} inst)`, unit: 'ms', value: api.p50Ms, baselineName: 'bare Fastify+same find', baseline: base.p50Ms, target: null, targetKind: null, lowerIsBetter: true }),
      );
    }
    const [small, large] = [opts.sizes[0]!, opts.sizes[opts.sizes.length - 1]!];
    if (large !== small) {
      // Not a gate: a 100k page slower than twice the 1k page means a page is not served from an index.
      const growth = p50s[large]! / p50s[small]!;
      details.p50Growth = growth;
      rows.push(row({ item: 'l1', metric: `  p50 at ${large / 1000}k / p50 at ${small / 1000}k instances`, unit: 'x', value: growth, baselineName: '-', baseline: null, target: null, targetKind: null, note: 'index work done when < 2' }));
    }
  } finally {
    await baseline?.close().catch(() => undefined);
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    logger.flush();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, details };
}
