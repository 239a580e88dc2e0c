/**
 * Group "gateway" (BENCH_ONLY=gateway): the inference gateway (DECISIONS 19) on the embedded profile
 * (`npm start`'s), simulator upstream, each figure beside a baseline of the same run:
 * - streamed tokens/s of one long chat stream through the gateway, beside a bare Fastify SSE route
 *   (same TLS, same process) writing the same chunks from the same simulator (goal: >= 80%);
 * - time to the first content token (p50, p99 over BENCH_GATEWAY_TTFT_SAMPLES sequential calls, with a key
 *   holding both limits, its phases from the gateway's server-timing, and with a key without limits),
 *   beside that bare route serving the simulator directly: the difference is what the gateway adds
 *   (key check, rpm, reservation append, usage append before settling; goal: <= 5 ms at p99);
 * - non-streamed chat completions/s at 16 and 64 connections (the load generator in its own process).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { createGateway } from '../apps/gateway/src/gateway';
import { SimulatorUpstream } from '../apps/gateway/src/simulator';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { MemoryRateLimitStore } from '../libs/http/src/rate-limit';
import { loadOrCreateSelfSigned } from '../libs/http/src/tls';
import { runLoad } from './http-load';
import { log, percentile, row, type Row } from './lib';

const HIGH = String(10_000_000);

/** `server-timing` (`<phase>;dur=<ms>, …`) as durations by phase. */
const phasesOf = (header: unknown): Record<string, number> =>
  Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((e) => /^\s*([\w-]+);dur=([\d.]+)/.exec(e))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], Number(m[2])]),
  );

/** POSTs a JSON body and reads the SSE answer: ms to the first content frame, content frames, total ms, the gateway's phases before the first byte. */
function stream(agent: https.Agent, url: string, headers: Record<string, string>, body: unknown): Promise<{ firstMs: number; frames: number; totalMs: number; phases: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let firstMs = -1;
    let frames = 0;
    let tail = '';
    const req = https.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = tail + chunk;
        const parts = text.split('\n\n');
        tail = parts.pop() ?? '';
        for (const p of parts) {
          if (!p.includes('"content":"') || p.includes('"content":""')) continue;
          frames++;
          if (firstMs < 0) firstMs = performance.now() - t0;
        }
      });
      res.on('end', () => resolve({ firstMs, frames, totalMs: performance.now() - t0, phases: phasesOf(res.headers['server-timing']) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

export async function benchGateway(opts: { tokens: number; ttftSamples: number; durationMs: number }): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-gateway-'));
  const env = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', EVENT_STORE: 'pglite', READ_STORE: 'memory', RATE_LIMIT_PROJECT_PER_MIN: HIGH, RATE_LIMIT_KEY_PER_MIN: HIGH, RATE_LIMIT_IP_PER_MIN: HIGH };
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  const tls = loadOrCreateSelfSigned(dataDir);
  let server: RunningServer | null = null;
  const bare = Fastify({ https: { key: tls.key, cert: tls.cert }, logger: false });
  const simulator = new SimulatorUpstream();
  // The baseline: the simulator's chunks as chat-completion frames, straight onto the socket.
  bare.post('/v1/chat/completions', async (req, reply) => {
    const body = req.body as { messages: { role: 'user'; content: string }[]; max_tokens: number };
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const abort = new AbortController();
    const hints = { 'x-simulator-tokens': String(req.headers['x-simulator-tokens'] ?? '') };
    for await (const e of simulator.generate({ model: 'sim-mini', messages: body.messages, maxTokens: body.max_tokens, hints, attempt: 1 }, abort.signal)) {
      if (e.type !== 'text') continue;
      const frame = `data: ${JSON.stringify({ id: 'chatcmpl-bare', object: 'chat.completion.chunk', created: 0, model: 'sim-mini', choices: [{ index: 0, delta: { content: e.text }, logprobs: null, finish_reason: null }] })}\n\n`;
      if (!reply.raw.write(frame)) await new Promise((r) => reply.raw.once('drain', r));
    }
    reply.raw.end('data: [DONE]\n\n');
  });
  try {
    server = await startServer(loadConfig({}, env), pino({ level: 'warn' }, pino.destination({ dest: path.join(dataDir, 'api.log'), sync: false })));
    const gw = await createGateway({ ports: server.platform, logger: server.platform.logger, cloudAuth: server.identity, hasher: server.identity.hasher, rateLimits: new MemoryRateLimitStore(), tls, host: '127.0.0.1', port: 0, serverTiming: true });
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const bareUrl = `https://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
    const { apiKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const session = await fetchJson(agent, `${gw.url}/api/session`, { 'x-service-api-key': apiKey }, {});
    const cookie = String(session.headers['set-cookie']).split(';')[0];
    // A key with both limits (room enough for the run): every call takes the rpm counter and reserves its worst case against the cap.
    const minted = await fetchJson(agent, `${gw.url}/api/keys`, { cookie }, { name: 'bench', limits: { rpm: 1_000_000, monthlySpendCapUsd: 1_000_000 } });
    const key = (minted.body as { data: { attributes: { key: string } } }).data.attributes.key;
    const auth = { authorization: `Bearer ${key}` };
    // And one without limits (as the bench minted before): nothing to reserve against before the first token.
    const plain = await fetchJson(agent, `${gw.url}/api/keys`, { cookie }, { name: 'bench-no-limits' });
    const authNoLimits = { authorization: `Bearer ${(plain.body as { data: { attributes: { key: string } } }).data.attributes.key}` };
    const long = { model: 'sim-mini', stream: true, max_tokens: 4096, messages: [{ role: 'user', content: 'bench' }] };

    // 1. streamed throughput: the same number of chunks through each, best of three.
    const through = async (url: string, h: Record<string, string>) => {
      let best = 0;
      for (let i = 0; i < 3; i++) {
        const r = await stream(agent, `${url}/v1/chat/completions`, { ...h, 'x-simulator-tokens': String(opts.tokens) }, { ...long, max_tokens: opts.tokens });
        if (r.frames !== opts.tokens) throw new Error(`expected ${opts.tokens} frames, got ${r.frames}`);
        best = Math.max(best, r.frames / (r.totalMs / 1000));
      }
      return best;
    };
    const bareTps = await through(bareUrl, {});
    const gwTps = await through(gw.url, auth);
    log(`gateway streamed ${Math.round(gwTps)} tokens/s; bare route ${Math.round(bareTps)} tokens/s`);

    // 2. time to the first token, sequential calls.
    // The gateway's own account of each sample (server-timing): the phases between the request and the first byte.
    const phaseSamples: Record<string, number>[] = [];
    const ttft = async (url: string, h: Record<string, string>, keep = false) => {
      const ms: number[] = [];
      for (let i = 0; i < opts.ttftSamples; i++) {
        const r = await stream(agent, `${url}/v1/chat/completions`, { ...h, 'x-simulator-tokens': '8' }, { ...long, max_tokens: 8 });
        ms.push(r.firstMs);
        if (keep) phaseSamples.push(r.phases);
      }
      return ms.sort((a, b) => a - b);
    };
    await ttft(gw.url, auth); // warm
    const bareFirst = await ttft(bareUrl, {});
    const gwFirst = await ttft(gw.url, auth, true);
    const gwFirstNoLimits = await ttft(gw.url, authNoLimits);
    const phaseNames = [...new Set(phaseSamples.flatMap((p) => Object.keys(p)))];
    const phases = Object.fromEntries(
      phaseNames.map((n) => {
        const v = phaseSamples.map((p) => p[n] ?? 0).sort((a, b) => a - b);
        return [n, { p50: percentile(v, 50), p99: percentile(v, 99), max: v[v.length - 1] }];
      }),
    );
    // Which phase the slowest samples spent their time in (the p99 is made of these).
    const slowest = phaseSamples
      .map((p) => ({ total: Object.values(p).reduce((a, b) => a + b, 0), p }))
      .sort((a, b) => b.total - a.total)
      .slice(0, Math.max(1, Math.ceil(phaseSamples.length / 100)));
    // What one append costs on this store, now, with nothing else asked of it: the reserve phase's floor.
    const appendMs: number[] = [];
    for (let i = 0; i < opts.ttftSamples; i++) {
      const t0 = performance.now();
      await server.platform.events.append(`benchappend-${i}`, [{ id: randomUUID(), type: 'bench.Appended.v1', data: { i }, metadata: { schemaVersion: 1 } }], { expectedRevision: 'no_stream' });
      appendMs.push(performance.now() - t0);
    }
    appendMs.sort((a, b) => a - b);
    log(`bare 1-event append on the same store: p50 ${percentile(appendMs, 50).toFixed(2)} ms p99 ${percentile(appendMs, 99).toFixed(2)} ms`);
    log(`first token phases (server-timing, ms): ${phaseNames.map((n) => `${n} p50 ${phases[n].p50.toFixed(2)} p99 ${phases[n].p99.toFixed(2)} max ${phases[n].max.toFixed(2)}`).join('; ')}`);
    log(`slowest samples: ${slowest.map((s) => JSON.stringify(s.p)).join(' ')}`);
    const added = { p50: percentile(gwFirst, 50) - percentile(bareFirst, 50), p99: percentile(gwFirst, 99) - percentile(bareFirst, 99) };
    log(`first token, key without limits: gateway p50 ${percentile(gwFirstNoLimits, 50).toFixed(2)} ms p99 ${percentile(gwFirstNoLimits, 99).toFixed(2)} ms`);
    log(`first token: gateway p50 ${percentile(gwFirst, 50).toFixed(2)} ms p99 ${percentile(gwFirst, 99).toFixed(2)} ms; bare p50 ${percentile(bareFirst, 50).toFixed(2)} p99 ${percentile(bareFirst, 99).toFixed(2)}`);

    // 3. non-streamed calls per second.
    const load = async (concurrency: number) =>
      runLoad({ url: `${gw.url}/v1/chat/completions`, method: 'POST', headers: auth, postBody: { model: 'sim-mini', max_tokens: 8, messages: [{ role: 'user', content: 'bench' }] }, idempotencyKey: false, concurrency, durationMs: opts.durationMs, warmupMs: 1000, expectStatus: 200 });
    const at16 = await load(16);
    const at64 = await load(64);
    await gw.close();
    const rows: Row[] = [
      row({ item: 'G1', metric: 'gateway streamed tokens/s (chat, simulator)', unit: 'tok/s', value: gwTps, baselineName: 'bare Fastify SSE route, same chunks', baseline: bareTps, target: 0.8, targetKind: 'ratio' }),
      row({ item: 'G2', metric: 'gateway first token p50 (ms)', unit: 'ms', value: percentile(gwFirst, 50), baselineName: 'simulator served directly', baseline: percentile(bareFirst, 50), target: null, targetKind: null, lowerIsBetter: true }),
      row({ item: 'G2', metric: 'gateway first token added at p99 (ms)', unit: 'ms', value: added.p99, baselineName: '-', baseline: null, target: 5, targetKind: 'atMost', note: `before the first byte, p99 by phase: ${phaseNames.map((n) => `${n} ${phases[n].p99.toFixed(2)}`).join(', ')} ms; a bare 1-event append p50 ${percentile(appendMs, 50).toFixed(2)} p99 ${percentile(appendMs, 99).toFixed(2)} ms` }),
      row({ item: 'G2', metric: 'key without limits: first token added at p99 (ms)', unit: 'ms', value: percentile(gwFirstNoLimits, 99) - percentile(bareFirst, 99), baselineName: '-', baseline: null, target: 5, targetKind: 'atMost', note: `p50 ${percentile(gwFirstNoLimits, 50).toFixed(2)} ms` }),
      row({ item: 'G3', metric: 'non-streamed chat calls/s at 16 connections', unit: 'req/s', value: at16.rps, baselineName: '-', baseline: null, target: null, targetKind: null, note: `p99 ${at16.p99Ms.toFixed(1)} ms, errors ${at16.errors}` }),
      row({ item: 'G3', metric: 'non-streamed chat calls/s at 64 connections', unit: 'req/s', value: at64.rps, baselineName: '-', baseline: null, target: null, targetKind: null, note: `p99 ${at64.p99Ms.toFixed(1)} ms, errors ${at64.errors}` }),
    ];
    return { rows, details: { phases, slowest, appendMs: { p50: percentile(appendMs, 50), p99: percentile(appendMs, 99) }, gwFirstNoLimits: { p50: percentile(gwFirstNoLimits, 50), p99: percentile(gwFirstNoLimits, 99) }, bareTps, gwTps, bareFirst: { p50: percentile(bareFirst, 50), p99: percentile(bareFirst, 99) }, gwFirst: { p50: percentile(gwFirst, 50), p99: percentile(gwFirst, 99) }, added, at16, at64 } };
  } finally {
    await bare.close();
    await server?.close();
    agent.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function fetchJson(agent: https.Agent, url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
