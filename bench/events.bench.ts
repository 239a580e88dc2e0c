/**
 * Group "events" (BENCH_ONLY=events): the event history of issue 22 on the embedded profile (PGlite
 * event store, in-memory read store), zero-latency simulator, one server in this process.
 *
 * - e1 `GET /v1/events?limit=100` with BENCH_EVENTS_SIZES (default 10,000 and 1,000,000) events in the
 *   project: copies of one real event-index document (new ids, positions, times) written straight
 *   into the index, as the list group seeds instances; the GET goes through the real API. Target: the
 *   large page's p50 at most twice the small one's.
 * - e2 SSE fan-out: BENCH_FANOUT_SUBSCRIBERS (100) readers of `GET /v1/events/stream` while 8 writers
 *   append BENCH_FANOUT_EVENTS (5,000) renames of one instance straight to the store; events delivered
 *   per second (all readers) and append→receive p99 (receive time minus the event's commit time),
 *   beside the store's own append rate for the same appends with no reader. The readers parse in a
 *   process of their own (bench/sse-readers.ts).
 * - e3 `GET /v1/instances/{id}?asOf=` on an instance with ~10 and with 10,000 events (the renames
 *   above and more), beside the plain GET of the same instance.
 */
import * as fs from 'node:fs';
import { fork } from 'node:child_process';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { REDACT_PATHS } from '../libs/http/src/logging';
import { instanceStream } from '../libs/domain/compute/instance.events';
import { EVENT_INDEX } from '../projections/event-index/event-index.projection';
import { runLoad, type LoadResult } from './http-load';
import { log, percentile, row, type Row } from './lib';
import type { ReadersResult, ReadersSpec } from './sse-readers';

export interface EventsBenchOptions {
  sizes: number[];
  subscribers: number;
  fanoutEvents: number;
  longHistory: number;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
}

const HIGH = String(10_000_000);
const describe = (name: string, r: LoadResult) =>
  `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.requests} requests, ${r.errors} errors${r.firstError ? ` first error: ${r.firstError}` : ''}`;

function call(baseUrl: string, apiKey: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const u = new URL(baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { 'x-service-api-key': apiKey, accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'idempotency-key': uuidv7() } : {}) };
  return new Promise((resolve, reject) => {
    const req = https.request({ method, hostname: u.hostname, port: u.port, path: p, headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Starts the readers' process (bench/sse-readers.ts); resolves once every reader is connected. */
function readers(spec: ReadersSpec): Promise<{ result(timeoutMs: number): Promise<ReadersResult> }> {
  const compiled = path.join(__dirname, 'sse-readers.js');
  const file = fs.existsSync(compiled) ? compiled : path.join(__dirname, 'sse-readers.ts');
  const execArgv = file.endsWith('.ts') ? ['-r', path.join(__dirname, '../test/support/ts-register.js')] : [];
  const child = fork(file, [], { execArgv, env: { ...process.env, BENCH_READERS_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', () => {
      const done = new Promise<ReadersResult>((r) => child.once('message', (m: ReadersResult) => r(m)));
      resolve({
        result: async (timeoutMs) => {
          const timer = setTimeout(() => child.send('stop'), timeoutMs);
          const r = await done;
          clearTimeout(timer);
          return r;
        },
      });
    });
    child.send(spec);
  });
}

export async function benchEvents(opts: EventsBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-events-'));
  const config = loadConfig({}, { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', EVENT_STORE: 'pglite', READ_STORE: 'memory', RATE_LIMIT_PROJECT_PER_MIN: HIGH, RATE_LIMIT_KEY_PER_MIN: HIGH, RATE_LIMIT_IP_PER_MIN: HIGH, SIMULATOR_LATENCY: 'zero' });
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false }));
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  let server: RunningServer | null = null;
  try {
    server = await startServer(config, logger);
    const srv = server;
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { projectId: string; apiKey: string };
    const api = (method: 'GET' | 'POST', p: string, body?: unknown) => call(srv.url, boot.apiKey, method, p, body);
    const load = (p: string) => runLoad({ url: `${srv.url}${p}`, method: 'GET', headers: { 'x-service-api-key': boot.apiKey, accept: 'application/json' }, concurrency: opts.concurrency, durationMs: opts.durationMs, warmupMs: opts.warmupMs, expectStatus: 200 });

    const provider = await api('POST', '/v1/providers', { name: 'provider_publiccloud', apiKey: 'x' });
    const created = await api('POST', '/v1/instances', { providerId: provider.body.data.id, region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'history' });
    if (created.status !== 202) throw new Error(`POST /v1/instances: ${created.status}`);
    const id = created.body.data.id as string;
    for (let i = 0; (await api('GET', `/v1/instances/${id}`)).body.data.attributes.status !== 'active'; i++) {
      if (i > 200) throw new Error('the instance never became active');
      await new Promise((r) => setTimeout(r, 50));
    }
    const stream = instanceStream(id);
    const renames = async (count: number, writers: number) => {
      let left = count;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: writers }, async () => {
          const [first] = await srv.platform.events.readStream(stream, { maxCount: 1 });
          while (left-- > 0) {
            await srv.platform.events.append(stream, [{ id: uuidv7(), type: 'compute.InstanceUpdated.v1', data: { instanceId: id, name: `history-${left}`, at: new Date().toISOString() }, metadata: { ...first!.metadata, schemaVersion: 1 } }], { expectedRevision: 'any' });
          }
        }),
      );
      return count / ((performance.now() - started) / 1000);
    };
    const settle = async () => {
      const head = await srv.platform.events.headPosition();
      while (!(await srv.platform.waitForProjections(head, ['instances', EVENT_INDEX.name])));
    };

    // e3 at ~10 events: the instance as created.
    const asOfPath = () => `/v1/instances/${id}?asOf=${encodeURIComponent(new Date().toISOString())}`;
    const short = (await srv.platform.events.readStream(stream)).length;
    const plainShort = await load(`/v1/instances/${id}`);
    const asOfShort = await load(asOfPath());
    log(describe(`GET instance (${short} events)`, plainShort));
    log(describe(`GET instance?asOf (${short} events)`, asOfShort));

    // e2: the store alone, then with the readers.
    const alone = await renames(opts.fanoutEvents, 8);
    log(`fan-out baseline: ${Math.round(alone)} appends/s with no reader`);
    const expected = opts.fanoutEvents * opts.subscribers;
    const crowd = await readers({ url: srv.url, apiKey: boot.apiKey, path: '/v1/events/stream?type=compute.InstanceUpdated.v1', subscribers: opts.subscribers, expected });
    const withReaders = await renames(opts.fanoutEvents, 8);
    // Once every copy arrived, or after a minute more.
    const got = await crowd.result(60_000);
    const received = got.received;
    const deliveredPerSec = received / Math.max(0.001, (got.lastAt - got.firstAt) / 1000);
    const latencies = got.latencies;
    const p99 = percentile(latencies, 99);
    log(`fan-out: ${received}/${expected} deliveries, ${Math.round(deliveredPerSec)} events/s delivered, append→receive p50 ${percentile(latencies, 50)} ms p99 ${p99} ms; appends ${Math.round(withReaders)}/s with readers; readers' process CPU ${Math.round(got.cpuMs)} ms`);
    details.fanout = { subscribers: opts.subscribers, events: opts.fanoutEvents, received, expected, deliveredPerSec, p50Ms: percentile(latencies, 50), p99Ms: p99, appendsPerSecAlone: alone, appendsPerSecWithReaders: withReaders };
    rows.push(
      row({ item: 'e2', metric: `SSE fan-out, ${opts.subscribers} readers: events delivered/s`, unit: 'ev/s', value: deliveredPerSec, baselineName: 'store appends/s alone', baseline: alone, target: null, targetKind: null, note: `${received}/${expected} delivered` }),
      row({ item: 'e2', metric: `SSE fan-out append→receive p99`, unit: 'ms', value: p99, baselineName: '-', baseline: null, target: null, targetKind: null }),
      row({ item: 'e2', metric: `store appends/s with ${opts.subscribers} readers`, unit: 'ev/s', value: withReaders, baselineName: 'store appends/s alone', baseline: alone, target: null, targetKind: null }),
    );

    // e3 at the long history.
    const have = (await srv.platform.events.readStream(stream)).length;
    if (have < opts.longHistory) await renames(opts.longHistory - have, 8);
    await settle();
    const long = (await srv.platform.events.readStream(stream)).length;
    const plainLong = await load(`/v1/instances/${id}`);
    const asOfLong = await load(asOfPath());
    log(describe(`GET instance (${long} events)`, plainLong));
    log(describe(`GET instance?asOf (${long} events)`, asOfLong));
    details.asOf = { short, long, plainShort, asOfShort, plainLong, asOfLong };
    rows.push(
      row({ item: 'e3', metric: `GET /v1/instances/{id}?asOf= p50 (${short} events)`, unit: 'ms', value: asOfShort.p50Ms, baselineName: 'plain GET', baseline: plainShort.p50Ms, target: null, targetKind: null, lowerIsBetter: true }),
      row({ item: 'e3', metric: `GET /v1/instances/{id}?asOf= p50 (${long} events)`, unit: 'ms', value: asOfLong.p50Ms, baselineName: 'plain GET', baseline: plainLong.p50Ms, target: null, targetKind: null, lowerIsBetter: true }),
    );

    // e1: the index at each size.
    const coll = await srv.platform.projections.collection(EVENT_INDEX);
    const template = (await coll.find({ filter: { eventType: 'compute.InstanceRequested.v1' }, limit: 1 })).items[0]!;
    let seeded = (await coll.find({ filter: { scope: template.scope }, limit: 0 })).total;
    const p50s: number[] = [];
    let position = 1e12;
    for (const size of opts.sizes) {
      const t = performance.now();
      for (; seeded < size; ) {
        const ops = [];
        for (let i = 0; i < 5000 && seeded < size; i++, seeded++) {
          const eid = uuidv7();
          position += 1;
          ops.push({ kind: 'put' as const, doc: { ...template, id: eid, position, event: { ...template.event, id: eid, position } }, isNew: true });
        }
        await coll.write(ops);
      }
      log(`events: ${seeded} in the project's index (seeded in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
      const r = await load('/v1/events?limit=100');
      log(describe(`GET /v1/events?limit=100 (${seeded})`, r));
      p50s.push(r.p50Ms);
      details[`list${size}`] = r;
      rows.push(row({ item: 'e1', metric: `GET /v1/events?limit=100 p50 (${size >= 1000 ? `${size / 1000}k` : size} events)`, unit: 'ms', value: r.p50Ms, baselineName: '-', baseline: null, target: null, targetKind: null, note: `${Math.round(r.rps)} req/s` }));
    }
    if (p50s.length > 1) {
      const growth = p50s[p50s.length - 1]! / p50s[0]!;
      rows.push(row({ item: 'e1', metric: `  p50 at ${opts.sizes[opts.sizes.length - 1]} / at ${opts.sizes[0]} events`, unit: 'x', value: growth, baselineName: '-', baseline: null, target: 2, targetKind: 'atMost' }));
    }
  } finally {
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    logger.flush();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { rows, details };
}
