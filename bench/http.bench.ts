/**
 * Items 2 and 3: GET /v1/api-keys?limit=20 and POST /v1/api-keys through the real API (server
 * profile, HTTPS, real project-key auth, Redis rate limiter with raised limits), GET against a bare
 * Fastify HTTPS route running the same read-store query on the same collection.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify from 'fastify';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import pino from 'pino';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { REDACT_PATHS } from '../libs/http/src/logging';
import { MongoReadStore } from '../libs/readstore/src/mongo-read-store';
import type { FindQuery } from '../libs/readstore/src/read-store.port';
import { apiKeysProjection, type ApiKeyDoc } from '../projections/api-keys/api-keys.projection';
import { runLoad, type LoadResult } from './http-load';
import { cpuDelta, cpuSnapshot, log, row, shortId, type Engines, type Row } from './lib';

export interface HttpBenchOptions {
  engines: Engines;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  keys: number;
}

const HIGH = String(10_000_000);

export type MeasuredLoad = LoadResult & { cpuSeconds: Record<string, number> };

/** Runs the load and records the CPU seconds each engine / process group used meanwhile (warm-up included). */
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

export async function benchHttp(opts: HttpBenchOptions): Promise<{ rows: Row[]; raw: Record<string, MeasuredLoad> }> {
  const id = shortId();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-'));
  const env: Record<string, string> = {
    PROFILE: 'server',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PG_URL: opts.engines.pgUrl,
    PG_SCHEMA: `bench_api_${id}`,
    MONGO_URL: opts.engines.mongoUrl,
    MONGO_DB: `bench_api_${id}`,
    REDIS_URL: opts.engines.redisUrl,
    KAFKA_BROKERS: opts.engines.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: `bench${id}`,
    RATE_LIMIT_PROJECT_PER_MIN: HIGH,
    RATE_LIMIT_KEY_PER_MIN: HIGH,
    RATE_LIMIT_IP_PER_MIN: HIGH,
  };
  const config = loadConfig({}, env);
  // Production-like: info level (one "request completed" line per request), written asynchronously to a file.
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false }));
  let server: RunningServer | null = null;
  let baseline: ReturnType<typeof Fastify> | null = null;
  let baselineStore: MongoReadStore | null = null;
  const rows: Row[] = [];
  const raw: Record<string, MeasuredLoad> = {};
  try {
    server = await startServer(config, logger);
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { projectId: string; apiKey: string };
    // ~50 keys in the project (bootstrap key + the rest issued directly through the identity service).
    const ctx = { metadata: { actor: 'system:bench' } };
    for (let i = 1; i < opts.keys; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, opts.keys - i) }, (_, k) =>
          server!.identity.issueKey({ projectId: boot.projectId, name: `seed-${i + k}`, role: 'developer', expiresAt: null, mode: 'test' }, ctx),
        ),
      );
    }
    const physical = await server.platform.projections.catalog.resolve(apiKeysProjection as never);
    log(`api up at ${server.url}; ${opts.keys} keys in project ${boot.projectId} (collection ${physical})`);

    const headers = { 'x-service-api-key': boot.apiKey, accept: 'application/json' };
    const get = await measure({ url: `${server.url}/v1/api-keys?limit=20`, method: 'GET', headers, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });
    log(describe('API GET /v1/api-keys', get));
    raw.apiGet = get;

    // Baseline: bare Fastify on HTTPS with the same certificate, same query on the same collection.
    baselineStore = await MongoReadStore.connect(opts.engines.mongoUrl, `bench_api_${id}`);
    const coll = baselineStore.collection<ApiKeyDoc>(physical);
    const query: FindQuery = { filter: { projectId: boot.projectId, scope: 'project' }, sort: [{ field: 'createdAt', direction: -1 }], skip: 0, limit: 20 };
    const tls = { key: fs.readFileSync(path.join(dataDir, 'tls', 'key.pem')), cert: fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem')) };
    baseline = Fastify({ https: tls, logger: false });
    baseline.get('/v1/api-keys', async () => {
      const { items, total } = await coll.find(query);
      return {
        data: items.map((d) => ({ id: d.id, type: 'api-keys', attributes: { name: d.name, prefix: d.prefix, role: d.role, expiresAt: d.expiresAt, revoked: d.revoked, createdAt: d.createdAt, lastUsedAt: d.lastUsedAt } })),
        meta: { total },
      };
    });
    await baseline.listen({ port: 0, host: '127.0.0.1' });
    const addr = baseline.server.address() as { port: number };
    const base = await measure({ url: `https://127.0.0.1:${addr.port}/v1/api-keys?limit=20`, method: 'GET', headers: { accept: 'application/json' }, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });
    log(describe('bare Fastify + same find', base));
    raw.baselineGet = base;
    rows.push(
      row({ item: '2', metric: `GET /v1/api-keys?limit=20, ${opts.concurrency} conns`, unit: 'req/s', value: get.rps, baselineName: 'bare Fastify+find', baseline: base.rps, target: 0.6, targetKind: 'ratio' }),
      row({ item: '2', metric: 'GET /v1/api-keys p99', unit: 'ms', value: get.p99Ms, baselineName: 'bare Fastify+find', baseline: base.p99Ms, target: null, targetKind: null, lowerIsBetter: true }),
    );
    await baseline.close();
    baseline = null;

    const post = await measure({ url: `${server.url}/v1/api-keys`, method: 'POST', headers, postApiKey: true, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 201 });
    log(describe('API POST /v1/api-keys', post));
    raw.apiPost = post;
    rows.push(
      row({ item: '3', metric: `POST /v1/api-keys, ${opts.concurrency} conns`, unit: 'req/s', value: post.rps, baselineName: 'GET through the API', baseline: get.rps, target: null, targetKind: null }),
      row({ item: '3', metric: 'POST /v1/api-keys p99', unit: 'ms', value: post.p99Ms, baselineName: 'GET through the API', baseline: get.p99Ms, target: null, targetKind: null, lowerIsBetter: true }),
    );
  } finally {
    await baseline?.close().catch(() => undefined);
    await baselineStore?.close().catch(() => undefined);
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    logger.flush();
    await cleanup(opts.engines, `bench_api_${id}`, `bench_api_${id}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, raw };
}

export async function cleanup(e: Engines, pgSchema: string, mongoDb: string): Promise<void> {
  try {
    const pg = new Client({ connectionString: e.pgUrl });
    await pg.connect();
    await pg.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
    await pg.end();
  } catch (err) {
    log(`cleanup of schema ${pgSchema} failed: ${String(err)}`);
  }
  try {
    const mongo = await MongoClient.connect(e.mongoUrl);
    await mongo.db(mongoDb).dropDatabase();
    await mongo.close();
  } catch (err) {
    log(`cleanup of database ${mongoDb} failed: ${String(err)}`);
  }
}
