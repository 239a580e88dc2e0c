/**
 * Keep-alive HTTPS load generator (no dependency): N concurrent request loops over one
 * `https.Agent({ keepAlive: true })`, so the client's CPU is not spent on the server's event loop:
 * it runs in a child process (its own CPU, attributable), `runLoad` forks it
 * and resolves with its figures.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { fork } from 'node:child_process';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** For POST: a JSON body per request (`{"name":"bench-<n>"}`) and a fresh Idempotency-Key. */
  postApiKey?: boolean;
  /** For POST: this JSON body per request, with `name` set to `bench-<n>`, and a fresh Idempotency-Key. */
  postBody?: Record<string, unknown>;
  /** false: POSTs carry no Idempotency-Key (to measure what the durable key record costs). */
  idempotencyKey?: boolean;
  concurrency: number;
  durationMs: number;
  /** Requests before timing starts (connections opened, JIT warm). */
  warmupMs: number;
  /** Status every response must have; others count as errors. */
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  firstError: string | null;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU seconds the load generator itself used while measuring. */
  clientCpuSeconds: number;
}

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // Compiled (npm run bench), or the source under test/support/ts-register.js (a group run straight from bench/).
    const compiled = path.join(__dirname, 'http-load.js');
    const file = fs.existsSync(compiled) ? compiled : path.join(__dirname, 'http-load.ts');
    const execArgv = file.endsWith('.ts') ? ['-r', path.join(__dirname, '../test/support/ts-register.js')] : [];
    const child = fork(file, [], { execArgv, env: { ...process.env, BENCH_LOAD_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: LoadResult | null = null;
    child.once('message', (m: LoadResult) => (result = m));
    child.once('error', reject);
    child.once('exit', (code) => (result && code === 0 ? resolve(result) : reject(new Error(`load generator exited with ${code}`))));
    child.send(spec);
  });
}

async function workerMain(spec: LoadSpec): Promise<LoadResult> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: spec.concurrency, rejectUnauthorized: false });
  const url = new URL(spec.url);
  let seq = 0;
  const once = (): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...spec.headers };
      let body: string | undefined;
      if (spec.postApiKey || spec.postBody) {
        body = JSON.stringify({ ...spec.postBody, name: `bench-${process.pid}-${seq++}` });
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
        if (spec.idempotencyKey !== false) headers['idempotency-key'] = randomUUID();
      }
      const req = https.request({ agent, method: spec.method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });

  const statuses: Record<string, number> = {};
  let errors = 0;
  let firstError: string | null = null;
  const latencies: number[] = [];
  let measuring = false;
  const loop = async (deadline: number) => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const r = await once();
        const ms = performance.now() - t0;
        if (!measuring) continue;
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        latencies.push(ms);
        if (r.status !== spec.expectStatus) {
          errors++;
          firstError ??= `${r.status} ${r.body.slice(0, 300)}`;
        }
      } catch (err) {
        if (!measuring) continue;
        errors++;
        firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, () => loop(performance.now() + spec.warmupMs)));
  measuring = true;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: spec.concurrency }, () => loop(started + spec.durationMs)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pick = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] : NaN);
  const ok = latencies.length - errors;
  return { requests: latencies.length, errors, statuses, firstError, seconds, rps: ok / seconds, p50Ms: pick(50), p99Ms: pick(99), maxMs: latencies[latencies.length - 1] ?? NaN, clientCpuSeconds: Math.round((cpu.user + cpu.system) / 1e5) / 10 };
}

if (process.env.BENCH_LOAD_CHILD === '1' && process.send) {
  process.once('message', (spec: LoadSpec) => {
    workerMain(spec).then(
      (r) => process.send!(r, () => process.exit(0)),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
