/**
 * Group "webhooks" (BENCH_ONLY=webhooks): webhook fan-out on the embedded profile (PGlite event
 * store, in-memory read store). 100 webhook endpoints (BENCH_WEBHOOK_ENDPOINTS) of one project
 * subscribe to `notification.created` at a plain-HTTP receiver on loopback (its own process) (the operator setting
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS is on); BENCH_WEBHOOK_EVENTS notifications (default 50) are created
 * through the API, 8 at a time, and the clock runs until the receiver has every delivery
 * (events x endpoints) and the deliveries model shows each one delivered.
 *
 * BENCH_WEBHOOK_PROFILE=server runs the same on the server engines (PostgreSQL, FerretDB, Redis, Kafka).
 *
 * Figure: events/s delivered to all endpoints (and the deliveries/s behind it), beside the baseline
 * measured first in the same run: signed POSTs (the same standardwebhooks signer, keep-alive
 * agent, 128 in flight like the deliverer) from this one process to the same receiver, as fast as
 * they go. The gap is the delivery machinery: per delivery, the scheduled event (fan-out), a read
 * of its stream, the attempt's event, and two read models (deliveries, endpoint health).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { REDACT_PATHS } from '../libs/http/src/logging';
import { notificationDeliveriesProjection } from '../projections/notification-deliveries/notification-deliveries.projection';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { serverConfig } from './compute.bench';
import { log, row, shortId, type Engines, type Row } from './lib';

export interface WebhooksBenchOptions {
  endpoints: number;
  events: number;
  baselineMs: number;
  /** `embedded` (PGlite, memory read store; the default) or `server` (PostgreSQL, FerretDB, Redis, Kafka). */
  profile: 'embedded' | 'server';
  engines: Engines;
}

const HIGH = String(10_000_000);

interface Receiver {
  url: string;
  count: () => Promise<number>;
  close: () => Promise<void>;
}

/**
 * The receiver runs in a process of its own (as a customer's would), so it does not share the API's
 * event loop; it reports its count on stdout when asked on stdin.
 */
const RECEIVER_SCRIPT = `
const http = require('node:http');
let count = 0;
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { count++; res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok'); }); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
process.stdin.on('data', () => process.stdout.write('count ' + count + '\\n'));
`;

async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, ['-e', RECEIVER_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let waiting: ((line: string) => void) | null = null;
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(line);
      } else lines.push(line);
    }
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise<string>((r) => (waiting = r)));
  const port = Number((await next()).split(' ')[1]);
  return {
    url: `http://127.0.0.1:${port}`,
    count: async () => {
      child.stdin!.write('?\n');
      return Number((await next()).split(' ')[1]);
    },
    close: async () => {
      child.kill();
    },
  };
}

/** Signed POSTs from this process, `inFlight` at a time, for `ms`: the rate one process sends at. */
async function rawSignedPosts(url: string, ms: number, inFlight: number): Promise<{ posts: number; seconds: number; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const wh = new Webhook(`whsec_${Buffer.alloc(32, 9).toString('base64')}`);
  const body = JSON.stringify({ type: 'notification.created', timestamp: new Date().toISOString(), data: { notificationId: '0190c0de-0000-7000-8000-000000000000', title: 'bench', message: 'x'.repeat(64), type: 'info' } });
  const end = performance.now() + ms;
  const started = performance.now();
  let posts = 0;
  let seq = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const id = `msg_bench_${seq++}`;
      const at = new Date();
      const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': wh.sign(id, at, body), 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await one();
        posts++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { posts, seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
}

export async function benchWebhooks(opts: WebhooksBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-webhooks-'));
  const env = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', EVENT_STORE: 'pglite', READ_STORE: 'memory', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_PROJECT_PER_MIN: HIGH, RATE_LIMIT_KEY_PER_MIN: HIGH, RATE_LIMIT_IP_PER_MIN: HIGH };
  const id = shortId();
  const config = opts.profile === 'server' ? serverConfig(opts.engines, `wh${id}`, dataDir, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }) : loadConfig({}, env);
  const logger = pino({ level: 'info', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false }));
  let server: RunningServer | null = null;
  const receiver = await startReceiver();
  try {
    const raw = await rawSignedPosts(`${receiver.url}/raw`, opts.baselineMs, 128);
    const rawRate = raw.posts / raw.seconds;
    log(`raw signed POSTs from one process: ${raw.posts} in ${raw.seconds.toFixed(1)} s = ${Math.round(rawRate)}/s`);

    server = await startServer(config, logger);
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    for (let i = 0; i < opts.endpoints; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, opts.endpoints - i) }, (_, j) => post(server!.url, boot.apiKey, '/v1/notifications/endpoints', { type: 'webhook', url: `${receiver.url}/ep/${i + j}`, events: ['notification.created'] })));
    }
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    // CPU time of this process (the API, its PGlite and read store) per delivery: less at the mercy of
    // other load on a shared machine than the wall-clock rate; and the events appended per delivery.
    const cpu0 = process.cpuUsage();
    const head0 = await server.platform.events.headPosition();
    const before = await receiver.count();
    const expected = opts.events * opts.endpoints;
    const started = performance.now();
    for (let i = 0; i < opts.events; i += 8) {
      await Promise.all(Array.from({ length: Math.min(8, opts.events - i) }, (_, j) => post(server!.url, boot.apiKey, '/v1/notifications', { title: `bench ${i + j}`, message: 'fan-out' })));
    }
    const postedSeconds = (performance.now() - started) / 1000;
    while ((await receiver.count()) - before < expected) {
      if (performance.now() - started > 600_000) throw new Error(`only ${(await receiver.count()) - before} of ${expected} deliveries arrived in 600 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const receivedSeconds = (performance.now() - started) / 1000;
    const deliveries = await server.platform.projections.collection(notificationDeliveriesProjection);
    for (;;) {
      const delivered = (await deliveries.find({ filter: { status: 'delivered' }, limit: 1 })).total;
      if (delivered >= expected) break;
      if (performance.now() - started > 600_000) throw new Error(`only ${delivered} of ${expected} deliveries recorded in 600 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const recordedSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuMsPerDelivery = (cpu.user + cpu.system) / 1000 / expected;
    // The created notifications' own events are not the deliveries' (one each).
    const eventsPerDelivery = ((await server.platform.events.headPosition()) - head0 - opts.events) / expected;
    log(`CPU of the API process during the fan-out: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s = ${cpuMsPerDelivery.toFixed(2)} ms per delivery; ${eventsPerDelivery.toFixed(2)} events appended per delivery`);
    const extra = (await receiver.count()) - before - expected;
    loop.disable();
    log(`event loop delay during the fan-out: p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`);
    const retried = (await deliveries.find({ filter: {}, limit: 100_000, withTotal: false })).items.filter((d) => d.attempts.length > 1);
    const errors = [...new Set(retried.flatMap((d) => d.attempts.filter((a) => !a.success).map((a) => a.error)))].slice(0, 5);
    const took = (await deliveries.find({ filter: {}, limit: 100_000, withTotal: false })).items.flatMap((d) => d.attempts.map((a) => a.durationMs)).sort((a, b) => a - b);
    log(`attempt durations: p50 ${took[Math.floor(took.length / 2)]} ms, p99 ${took[Math.floor(took.length * 0.99)]} ms, max ${took[took.length - 1]} ms`);
    if (retried.length) log(`${retried.length} deliveries took more than one attempt; errors: ${JSON.stringify(errors)}`);
    log(`fan-out: ${opts.events} events x ${opts.endpoints} endpoints = ${expected} deliveries; events posted in ${postedSeconds.toFixed(1)} s, all received after ${receivedSeconds.toFixed(1)} s, all recorded after ${recordedSeconds.toFixed(1)} s; ${extra} extra deliveries`);
    const eventsPerS = opts.events / receivedSeconds;
    const deliveriesPerS = expected / receivedSeconds;
    return {
      rows: [
        row({ item: 'n1', metric: `webhook fan-out (${opts.profile}): events/s delivered to ${opts.endpoints} endpoints`, unit: 'ev/s', value: eventsPerS, baselineName: `raw signed POSTs/s / ${opts.endpoints}`, baseline: rawRate / opts.endpoints, target: null, targetKind: null }),
        row({ item: 'n1', metric: '  the same as deliveries/s (signed POSTs acknowledged)', unit: 'POST/s', value: deliveriesPerS, baselineName: 'raw signed POSTs, one process', baseline: rawRate, target: null, targetKind: null }),
        row({ item: 'n1', metric: '  until every delivery was recorded delivered', unit: 'POST/s', value: expected / recordedSeconds, baselineName: 'raw signed POSTs, one process', baseline: rawRate, target: null, targetKind: null }),
        row({ item: 'n1', metric: '  API process CPU per delivery (sent and recorded)', unit: 'ms', value: cpuMsPerDelivery, baselineName: 'raw signed POST, one process', baseline: raw.cpuMs / raw.posts, target: null, targetKind: null, lowerIsBetter: true }),
      ],
      details: { endpoints: opts.endpoints, events: opts.events, expected, postedSeconds, receivedSeconds, recordedSeconds, cpuMsPerDelivery, eventsPerDelivery, extra, retried: retried.length, errors, raw: { ...raw, rate: rawRate } },
    };
  } finally {
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    await receiver.close();
    if (opts.profile === 'server') await dropServerData(opts.engines, `bench_cmp_wh${id}`).catch((err) => log(`cleanup failed: ${String(err)}`));
    logger.flush();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function post(base: string, apiKey: string, route: string, body: unknown): Promise<unknown> {
  const https = await import('node:https');
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const u = new URL(route, base);
    const req = https.request({ method: 'POST', hostname: u.hostname, port: u.port, path: u.pathname, rejectUnauthorized: false, headers: { 'x-service-api-key': apiKey, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`POST ${route}: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The server profile's schema and database of this run. */
async function dropServerData(e: Engines, name: string): Promise<void> {
  const pg = new Client({ connectionString: e.pgUrl });
  await pg.connect();
  await pg.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  await pg.end();
  const mongo = await MongoClient.connect(e.mongoUrl);
  await mongo.db(name).dropDatabase();
  await mongo.close();
}
