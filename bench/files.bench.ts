/**
 * Group "files" (BENCH_ONLY=files): `PUT /v1/files/{id}` on the embedded profile, one request at a
 * time, on a file whose history holds BENCH_FILE_VERSIONS versions (default 500) of 64 KiB each,
 * beside the same PUT on a file with 10 versions in the same run (the baseline). A PUT decides on
 * the file's read-model state and appends at its revision, so its cost should not grow with the
 * history; a PUT that folded the stream read every earlier version's content back first. 25,000
 * other events are appended between building the histories and timing the PUTs, so what a PUT reads
 * comes from the database, not from the event store's in-memory tail.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { log, row, shortId, type Row } from './lib';

export interface FilesBenchOptions {
  /** PGlite (embedded), or PostgreSQL at this URL (in a schema of its own); the read store is in memory either way. */
  pgUrl: string | null;
  versions: number;
  /** Timed PUTs per file. */
  samples: number;
}

const HIGH = String(10_000_000);
const content = (n: number) => `${String(n).padStart(8, '0')}${'x'.repeat(64 * 1024 - 8)}`;

export async function benchFiles(opts: FilesBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-files-'));
  const schema = `bench_files_${shortId()}`;
  const store: Record<string, string> = opts.pgUrl ? { EVENT_STORE: 'postgres', PG_URL: opts.pgUrl, PG_SCHEMA: schema } : { EVENT_STORE: 'pglite' };
  const label = opts.pgUrl ? 'PostgreSQL event store' : 'embedded';
  const env = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...store, READ_STORE: 'memory', RATE_LIMIT_PROJECT_PER_MIN: HIGH, RATE_LIMIT_KEY_PER_MIN: HIGH, RATE_LIMIT_IP_PER_MIN: HIGH };
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  let server: RunningServer | null = null;
  try {
    server = await startServer(loadConfig({}, env), pino({ level: 'warn' }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false })));
    const { apiKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const call = (method: 'POST' | 'PUT', p: string, body: unknown) => request(agent, `${server!.url}${p}`, method, apiKey, body);
    const fileWith = async (name: string, versions: number) => {
      const id = (await call('POST', '/v1/files', { path: '/bench', name, content: content(1) })).data.id as string;
      for (let v = 2; v <= versions; v++) await call('PUT', `/v1/files/${id}`, { content: content(v) });
      return id;
    };
    const timePuts = async (id: string) => {
      const ms: number[] = [];
      for (let i = 0; i < opts.samples; i++) {
        const t = performance.now();
        await call('PUT', `/v1/files/${id}`, { content: content(i) });
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      return { p50Ms: ms[Math.floor(ms.length / 2)]!, p99Ms: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))]!, meanMs: ms.reduce((a, b) => a + b, 0) / ms.length };
    };
    const young = await fileWith('young.txt', 10);
    const built = performance.now();
    const old = await fileWith('old.txt', opts.versions);
    const buildSeconds = (performance.now() - built) / 1000;
    // 25,000 other events since: the event store's in-memory tail (the last 20,000) no longer holds
    // the histories, as in a busy service, so what a PUT reads comes from the database.
    for (let b = 0; b < 250; b++) {
      const events = Array.from({ length: 100 }, () => ({ id: randomUUID(), type: 'bench.Filler.v1', data: {}, metadata: { schemaVersion: 1 } }));
      await server.platform.events.append(`bench-filler-${b}`, events, { expectedRevision: 'no_stream' });
    }
    const head = await server.platform.events.headPosition();
    await Promise.all(server.platform.allRunners().map((r) => r.waitFor(head, 120_000)));
    // Alternate the two files so both see the same machine.
    const a1 = await timePuts(young);
    const b1 = await timePuts(old);
    const a2 = await timePuts(young);
    const b2 = await timePuts(old);
    const youngP50 = (a1.p50Ms + a2.p50Ms) / 2;
    const oldP50 = (b1.p50Ms + b2.p50Ms) / 2;
    log(`file PUT of 64 KiB (${label}), 1 connection: ${opts.versions}-version history p50 ${oldP50.toFixed(2)} ms (p99 ${Math.max(b1.p99Ms, b2.p99Ms).toFixed(2)}), 10-version history p50 ${youngP50.toFixed(2)} ms (p99 ${Math.max(a1.p99Ms, a2.p99Ms).toFixed(2)}); building ${opts.versions} versions took ${buildSeconds.toFixed(1)} s (${((opts.versions - 1) / buildSeconds).toFixed(0)} PUT/s); ${opts.samples * 2} samples each`);
    return {
      rows: [row({ item: 'f1', metric: `PUT /v1/files/{id} p50 at ${opts.versions} versions of 64 KiB, ${label}`, unit: 'ms', value: oldP50, baselineName: 'same PUT at 10 versions', baseline: youngP50, target: null, targetKind: null, lowerIsBetter: true })],
      details: { store: label, versions: opts.versions, young: [a1, a2], old: [b1, b2], buildSeconds },
    };
  } finally {
    agent.destroy();
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    if (opts.pgUrl) {
      const pg = new Client({ connectionString: opts.pgUrl });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => pg.end());
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function request(agent: https.Agent, url: string, method: string, apiKey: string, body: unknown): Promise<any> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, agent, headers: { 'x-service-api-key': apiKey, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200 || res.statusCode === 201) resolve(JSON.parse(text));
        else reject(new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 300)}`));
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
