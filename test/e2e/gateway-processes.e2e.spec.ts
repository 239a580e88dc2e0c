import OpenAI from 'openai';
import { ManualClock } from '../../libs/runtime/src/clock';
import { client } from '../support/http-client';
import { unusedPort } from '../support/ports';
import { advanceClockOf, spawnServer, waitUp, type SpawnedServer } from '../support/spawn-server';
import { startTestServer, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { insecureFetch, openSession, type TestGateway } from './gateway.support';

type UsageRow = { id: string; attributes: { requestId: string; attempt: number; outputTokens: number; costUsd: number; outcome: string } };

/**
 * The hard limits of DECISIONS 19 with two gateway processes (apps/launcher/src/gateway-main.ts, as a
 * split deployment runs them: ROLE=api) on the server profile's shared PostgreSQL and Redis; the
 * in-process test server is the worker that runs the projections. Every clock (the worker's and the
 * two gateways') is real time plus the same offset, moved together.
 */
describe('gateway limits across two gateway processes (server profile)', () => {
  let srv: TestServer;
  const clock = new ManualClock();
  const gateways: { proc: SpawnedServer; gw: TestGateway }[] = [];
  let cookie: string;

  beforeAll(async () => {
    srv = await startTestServer('server', {}, { clock });
    const shared = { ...srv.env, ROLE: 'api', NODE_ENV: 'test', TEST_CLOCK_OFFSET_MS: '0', LOG_LEVEL: 'warn' };
    const started = [0, 1].map(() => {
      const port = unusedPort();
      const proc = spawnServer({ ...shared, GATEWAY_PORT: String(port) }, unusedPort(), 'apps/launcher/src/gateway-main.ts');
      const url = `https://127.0.0.1:${port}`;
      return { proc, gw: { url, http: (headers: Record<string, string> = {}) => client(url, headers), close: async () => undefined } };
    });
    gateways.push(...started);
    await Promise.all(started.map((g) => waitUp(g.gw.url, g.proc, 240000, '/api/models')));
    cookie = await openSession(gateways[0].gw, srv.bootstrap.apiKey);
  }, 300000);
  afterAll(async () => {
    await Promise.all(
      gateways.map(async ({ proc }) => {
        if (proc.proc.exitCode !== null) return;
        const exited = new Promise((r) => proc.proc.once('exit', r));
        proc.proc.kill('SIGTERM');
        await exited;
      }),
    );
    await srv?.stop();
  });

  const gw = (i: number) => gateways[i % 2].gw;
  const mint = async (limits: Record<string, unknown> = {}) => {
    const res = await gw(1).http({ cookie }).post('/api/keys', { name: 'processes', limits });
    expect(res.status).toBe(201);
    return { id: res.body.data.id as string, key: res.body.data.attributes.key as string };
  };
  const chat = (g: TestGateway, key: string) => g.http({ Authorization: `Bearer ${key}` }).post('/v1/chat/completions', { model: 'sim-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 3 });
  const usageOf = async (key: string, keyId: string, count: number): Promise<UsageRow[]> =>
    (await eventually(() => gw(0).http({ Authorization: `Bearer ${key}` }).get(`/api/usage?keyId=${keyId}&limit=100`), (r) => r.status === 200 && r.body.meta.total >= count)).body.data;
  const budgetOf = async (keyId: string) => srv.platform.events.readStream(`gwbudget-${keyId}:${new Date(clock.now()).toISOString().slice(0, 7)}`);
  /** Moves every clock (the worker's, both gateways') by the same amount. */
  const advanceAll = async (ms: number) => {
    clock.advance(ms);
    await Promise.all(gateways.map((g) => advanceClockOf(g.proc, ms)));
  };

  it('64 concurrent calls over both processes against a cap with room for 10 admit at most 10, and the spend never passes the cap', async () => {
    // Each call reserves its worst case (1 input byte at 0.15 + 3 output tokens at 0.6 USD per million:
    // 2 micro-dollars) and costs exactly that: a cap of 20 micro-dollars has room for 10.
    const { id, key } = await mint({ monthlySpendCapUsd: 0.00002 });
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => chat(gw(i), key)));
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted.length + refused.length).toBe(64);
    // At most 10; and, as every admitted call costs exactly what it reserved, no fewer.
    expect(admitted).toHaveLength(10);
    for (const r of refused) {
      expect(r.headers['x-should-retry']).toBe('false');
      expect(r.body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    }
    const rows = await usageOf(key, id, admitted.length);
    expect(rows).toHaveLength(admitted.length);
    const spentMicros = rows.reduce((s, r) => s + Math.round(r.attributes.costUsd * 1e6), 0);
    expect(spentMicros).toBeLessThanOrEqual(20);
    // Every reservation is settled, and the settlements are the usage recorded.
    const settled = (await budgetOf(id)).filter((e) => e.type === 'gateway.SpendSettled.v1');
    expect(settled).toHaveLength(admitted.length);
    expect(settled.reduce((s, e) => s + (e.data as { actualMicros: number }).actualMicros, 0)).toBe(spentMicros);
    // Once the cap is reached it stays reached, on either process.
    for (const g of [0, 1]) expect((await chat(gw(g), key)).status).toBe(429);
  });

  it('counts requests per minute exactly across both processes: N allowed, the N+1th refused with retry-after in the vendor envelope', async () => {
    // One second into a fresh minute on every clock: every call falls in one window.
    await advanceAll(60_000 - (clock.now() % 60_000) + 1000);
    const { key } = await mint({ rpm: 7 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(gw(i), key)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(7);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(13);
    for (const r of limited) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(r.headers['x-should-retry']).toBeUndefined();
      expect(r.body).toEqual({ error: { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded', param: null, message: expect.any(String) } });
    }
    // The Anthropic route answers the same refusal in its own envelope.
    const messages = await gw(1).http({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }).post('/v1/messages', { model: 'sim-mini', max_tokens: 3, messages: [{ role: 'user', content: 'x' }] });
    expect(messages.status).toBe(429);
    expect(messages.headers['retry-after']).toBeDefined();
    expect(messages.body).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } });
    // The next minute admits again.
    await advanceAll(60_000);
    expect((await chat(gw(0), key)).status).toBe(200);
  });

  it('bills a client that disconnects at chunk k for k chunks, once', async () => {
    const { id, key } = await mint();
    const openai = new OpenAI({ apiKey: key, baseURL: `${gw(1).url}/v1`, fetch: insecureFetch, maxRetries: 0, defaultHeaders: { 'x-simulator-tokens': '40', 'x-simulator-chunk-delay-ms': '500' } });
    const stream = await openai.chat.completions.create({ model: 'sim-mini', max_tokens: 40, stream: true, messages: [{ role: 'user', content: 'long story' }] });
    const k = 4;
    let content = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) content++;
      if (content === k) break;
    }
    const [row] = await usageOf(key, id, 1);
    expect(row.attributes).toMatchObject({ outcome: 'disconnected', outputTokens: k, attempt: 1 });
    const types = await eventually(async () => (await budgetOf(id)).map((e) => e.type), (t) => t.includes('gateway.SpendSettled.v1'));
    expect(types).toEqual(['gateway.SpendReserved.v1', 'gateway.SpendSettled.v1']);
    const settled = (await budgetOf(id)).find((e) => e.type === 'gateway.SpendSettled.v1')!;
    expect((settled.data as { actualMicros: number }).actualMicros).toBe(Math.round(row.attributes.costUsd * 1e6));
    expect(await usageOf(key, id, 1)).toHaveLength(1);
  });
});
