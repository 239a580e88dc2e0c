/**
 * `npm run bench` (scripts/bench.sh): server-profile figures, each beside a baseline measured in the
 * same run. Prints a table and writes bench/results/latest.json.
 *
 * Knobs (env): BENCH_ONLY=1,2,4 (items to run), BENCH_DURATION_MS (HTTP load per run, default 10000),
 * BENCH_ES_DURATION_MS (event-store runs, default 5000), BENCH_CONCURRENCY (HTTP, default 16),
 * BENCH_KEYS (history keys for item 4, 5 events each, default 40000), BENCH_MONGO_KEYS (keys of the part
 * rebuilt into FerretDB, default all of them), BENCH_RELAY_EVENTS (default 50000).
 * Group "compute" (in the default run; BENCH_ONLY=compute, or compute-http / compute-rebuild for one
 * half): BENCH_LIST_INSTANCES (default 10000), BENCH_LATENCY_CREATES (default 50), BENCH_HISTORY_EVENTS
 * (default 1000000), BENCH_HISTORY_MEMORY=1 (also rebuild every read model into memory),
 * BENCH_COMPUTE_ITEMS=c1,c2,c3 (which compute-http items to measure; the 10k seed runs either way).
 * Group "events" (BENCH_ONLY=events only; bench/events.bench.ts): the event history of issue 22:
 * GET /v1/events?limit=100 at BENCH_EVENTS_SIZES, SSE fan-out to BENCH_FANOUT_SUBSCRIBERS readers, and
 * ?asOf= at BENCH_ASOF_EVENTS events beside the plain GET.
 * Group "list" (BENCH_ONLY=list): GET /v1/instances?limit=20 on the embedded profile at each of
 * BENCH_LIST_SIZES instances (default 1000,100000), see list.bench.ts.
 * Group "list-seek" (BENCH_ONLY=list-seek, not in the default run): page 200 of a 10k list by skip and
 * by cursor on the read store alone (memory; FerretDB with BENCH_SEEK_MONGO=1), see list-seek.bench.ts.
 * Group "create" (BENCH_ONLY=create): POST /v1/instances on the embedded profile at each of
 * BENCH_CREATE_CONCURRENCY connections (default 16,32), see create.bench.ts.
 * Group "wallets" (in the default run; BENCH_ONLY=wallets): wallet credits/s on 1 wallet and on
 * BENCH_WALLETS wallets (default 1000) beside the bare 1-event append, BENCH_WALLET_DURATION_MS
 * (default 5000) and BENCH_WALLET_CONCURRENCY (default 16), see wallet.bench.ts.
 * Group "files" (in the default run; BENCH_ONLY=files): PUT /v1/files/{id} at BENCH_FILE_VERSIONS versions
 * of 64 KiB (default 500) beside the same PUT at 10 versions, BENCH_FILE_SAMPLES PUTs per half (default
 * 100), see files.bench.ts.
 * Group "gateway" (in the default run; BENCH_ONLY=gateway): the inference gateway's streamed tokens/s,
 * first-token latency and non-streamed calls/s, BENCH_GATEWAY_TOKENS (default 4000, at most sim-mini's 4096 output tokens) and
 * BENCH_GATEWAY_TTFT_SAMPLES (default 200), see gateway.bench.ts.
 * Group "console" (in the default run; BENCH_ONLY=console): the web console's bundle size and the
 * overview's first paint in headless chromium, BENCH_CONSOLE_LOADS page loads (default 10), see console.bench.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchEventStore } from './event-store.bench';
import { benchHttp } from './http.bench';
import { benchProjections } from './projection.bench';
import { benchRelayItem } from './relay.bench';
import { benchCompute } from './compute.bench';
import { benchHistoryRebuild } from './history.bench';
import { benchList } from './list.bench';
import { benchListSeek } from './list-seek.bench';
import { benchCreate } from './create.bench';
import { benchWallets } from './wallet.bench';
import { benchLongStreams } from './long-streams.bench';
import { benchWebhooks } from './webhooks.bench';
import { benchFiles } from './files.bench';
import { benchGateway } from './gateway.bench';
import { benchConsole } from './console.bench';
import { benchEvents } from './events.bench';
import { engines, formatTable, log, quiesce, type Row } from './lib';

const num = (name: string, dflt: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};

async function main(): Promise<number> {
  const e = engines();
  const only = new Set((process.env.BENCH_ONLY ?? '1,2,3,4,5,compute,list,create,wallets,webhooks,files,streams,gateway,console').split(',').map((s) => s.trim()));
  const started = performance.now();
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  const failures: Record<string, string> = {};

  const step = async (name: string, fn: () => Promise<void>) => {
    const quiet = await quiesce();
    const t = performance.now();
    log(`--- ${name} (after ${(quiet.waitedMs / 1000).toFixed(1)} s waiting for a quiet machine; busy ${quiet.busy === null ? '?' : Math.round(quiet.busy * 100) + '%'})`);
    try {
      await fn();
    } catch (err) {
      failures[name] = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(`${name} FAILED: ${failures[name]}`);
    }
    details[`${name}Seconds`] = Math.round((performance.now() - t) / 100) / 10;
  };

  if (only.has('1')) {
    await step('eventStore', async () => {
      rows.push(...(await benchEventStore({ pgUrl: e.pgUrl, durationMs: num('BENCH_ES_DURATION_MS', 5000) })));
    });
  }
  if (only.has('2') || only.has('3')) {
    await step('http', async () => {
      const r = await benchHttp({ engines: e, concurrency: num('BENCH_CONCURRENCY', 16), durationMs: num('BENCH_DURATION_MS', 10_000), warmupMs: 1500, keys: 50 });
      rows.push(...r.rows);
      details.http = r.raw;
    });
  }
  if (only.has('4')) {
    await step('projections', async () => {
      const r = await benchProjections({ engines: e, keys: num('BENCH_KEYS', 40_000), mongoKeys: Math.min(num('BENCH_MONGO_KEYS', 40_000), num('BENCH_KEYS', 40_000)), window: 1000, batchSize: 5000 });
      rows.push(...r.rows);
      Object.assign(details, r.details);
    });
  }
  if (only.has('5')) {
    await step('relay', async () => {
      const r = await benchRelayItem({ engines: e, events: num('BENCH_RELAY_EVENTS', 50_000), batchSize: 2000 });
      rows.push(...r.rows);
      Object.assign(details, r.details);
    });
  }
  if (only.has('compute') || only.has('compute-http')) {
    await step('compute', async () => {
      const r = await benchCompute({
        engines: e,
        concurrency: num('BENCH_CONCURRENCY', 16),
        durationMs: num('BENCH_DURATION_MS', 10_000),
        warmupMs: 1500,
        listInstances: num('BENCH_LIST_INSTANCES', 10_000),
        latencyCreates: num('BENCH_LATENCY_CREATES', 50),
        items: new Set((process.env.BENCH_COMPUTE_ITEMS ?? 'c1,c2,c3').split(',').map((s) => s.trim())),
      });
      rows.push(...r.rows);
      details.compute = r.details;
    });
  }
  if (only.has('compute') || only.has('compute-rebuild')) {
    await step('computeRebuild', async () => {
      const r = await benchHistoryRebuild({ engines: e, events: num('BENCH_HISTORY_EVENTS', 1_000_000), window: 5000, batchSize: 5000, memory: process.env.BENCH_HISTORY_MEMORY === '1' });
      rows.push(...r.rows);
      details.computeRebuild = r.details;
    });
  }

  if (only.has('list')) {
    await step('list', async () => {
      const sizes = (process.env.BENCH_LIST_SIZES ?? '1000,100000').split(',').map(Number).filter((n) => Number.isSafeInteger(n) && n > 1);
      const r = await benchList({ sizes, concurrency: num('BENCH_CONCURRENCY', 16), durationMs: num('BENCH_DURATION_MS', 10_000), warmupMs: 1500 });
      rows.push(...r.rows);
      details.list = r.details;
    });
  }

  if (only.has('list-seek')) {
    await step('listSeek', async () => {
      const r = await benchListSeek({ docs: num('BENCH_SEEK_DOCS', 10_000), page: num('BENCH_SEEK_PAGE', 200), limit: 20, ...(process.env.BENCH_SEEK_MONGO === '1' ? { mongoUrl: e.mongoUrl } : {}) });
      rows.push(...r.rows);
      details.listSeek = r.details;
    });
  }

  if (only.has('events')) {
    await step('events', async () => {
      const sizes = (process.env.BENCH_EVENTS_SIZES ?? '10000,1000000').split(',').map(Number).filter((n) => Number.isSafeInteger(n) && n > 1);
      const r = await benchEvents({
        sizes,
        subscribers: num('BENCH_FANOUT_SUBSCRIBERS', 100),
        fanoutEvents: num('BENCH_FANOUT_EVENTS', 5000),
        longHistory: num('BENCH_ASOF_EVENTS', 10_000),
        concurrency: num('BENCH_CONCURRENCY', 16),
        durationMs: num('BENCH_DURATION_MS', 10_000),
        warmupMs: 1500,
      });
      rows.push(...r.rows);
      details.events = r.details;
    });
  }

  if (only.has('create')) {
    await step('create', async () => {
      const concurrencies = (process.env.BENCH_CREATE_CONCURRENCY ?? '16,32').split(',').map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
      const r = await benchCreate({ concurrencies, durationMs: num('BENCH_DURATION_MS', 10_000), warmupMs: 1500 });
      rows.push(...r.rows);
      details.create = r.details;
    });
  }

  if (only.has('streams')) {
    await step('streams', async () => {
      const r = await benchLongStreams({ pgUrl: e.pgUrl, events: num('BENCH_STREAM_EVENTS', 100_000), writes: num('BENCH_STREAM_WRITES', 20) });
      rows.push(...r.rows);
      details.streams = r.details;
    });
  }

  if (only.has('wallets')) {
    await step('wallets', async () => {
      const r = await benchWallets({ pgUrl: e.pgUrl, durationMs: num('BENCH_WALLET_DURATION_MS', 5000), concurrency: num('BENCH_WALLET_CONCURRENCY', 16), wallets: num('BENCH_WALLETS', 1000), slices: num('BENCH_WALLET_SLICES', 5) });
      rows.push(...r.rows);
      details.wallets = r.details;
    });
  }

  if (only.has('webhooks')) {
    await step('webhooks', async () => {
      const profile = process.env.BENCH_WEBHOOK_PROFILE === 'server' ? 'server' : 'embedded';
      const r = await benchWebhooks({ endpoints: num('BENCH_WEBHOOK_ENDPOINTS', 100), events: num('BENCH_WEBHOOK_EVENTS', 50), baselineMs: num('BENCH_WEBHOOK_BASELINE_MS', 5000), profile, engines: e });
      rows.push(...r.rows);
      details.webhooks = r.details;
    });
  }

  if (only.has('gateway')) {
    await step('gateway', async () => {
      const r = await benchGateway({ tokens: num('BENCH_GATEWAY_TOKENS', 4000), ttftSamples: num('BENCH_GATEWAY_TTFT_SAMPLES', 200), durationMs: num('BENCH_DURATION_MS', 10_000) });
      rows.push(...r.rows);
      details.gateway = r.details;
    });
  }
  if (only.has('console')) {
    await step('console', async () => {
      const r = await benchConsole({ loads: num('BENCH_CONSOLE_LOADS', 10) });
      rows.push(...r.rows);
      details.console = r.details;
    });
  }
  if (only.has('files')) {
    await step('files', async () => {
      const runs = [];
      for (const pgUrl of [null, e.pgUrl]) {
        const r = await benchFiles({ pgUrl, versions: num('BENCH_FILE_VERSIONS', 500), samples: num('BENCH_FILE_SAMPLES', 100) });
        rows.push(...r.rows);
        runs.push(r.details);
      }
      details.files = runs;
    });
  }

  const seconds = (performance.now() - started) / 1000;
  const table = formatTable(rows);
  process.stdout.write(`\n${table}\n\nbench took ${seconds.toFixed(0)} s on ${os.cpus().length} CPUs (node ${process.version})\n`);
  if (Object.keys(failures).length > 0) process.stdout.write(`FAILED items: ${Object.keys(failures).join(', ')} (see bench/results/latest.json)\n`);

  const outDir = path.join(__dirname, '..', '..', 'bench', 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const json = { at: new Date().toISOString(), seconds: Math.round(seconds), host: { cpus: os.cpus().length, node: process.version }, engines: e, rows, table, details, failures };
  fs.writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify(json, null, 2) + '\n');
  log(`wrote ${path.relative(process.cwd(), path.join(outDir, 'latest.json'))}`);
  return Object.keys(failures).length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
