import OpenAI from 'openai';
import { ManualClock } from '../../libs/runtime/src/clock';
import { recordUsage } from '../../usecases/gateway/usage';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { insecureFetch, openSession, startTestGateway, type TestGateway } from './gateway.support';

type UsageRow = { id: string; attributes: { requestId: string; attempt: number; keyId: string; model: string; inputTokens: number; outputTokens: number; costUsd: number; outcome: string } };

/** The usage ledger and the hard limits (DECISIONS 19), with two gateways on one store. */
describe.each<Profile>(['embedded', 'server'])('gateway usage ledger and limits (%s profile)', (profile) => {
  let srv: TestServer;
  let gw: TestGateway;
  let gw2: TestGateway;
  let cookie: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    srv = await startTestServer(profile, {}, { clock });
    gw = await startTestGateway(srv);
    gw2 = await startTestGateway(srv);
    cookie = await openSession(gw, srv.bootstrap.apiKey);
  });
  afterAll(async () => {
    await gw2?.close();
    await gw?.close();
    await srv?.stop();
  });

  const mint = async (limits: Record<string, unknown> = {}) => {
    const res = await gw.http({ cookie }).post('/api/keys', { name: 'ledger', limits });
    expect(res.status).toBe(201);
    return { id: res.body.data.id as string, key: res.body.data.attributes.key as string };
  };
  const chat = (g: TestGateway, key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    g.http({ Authorization: `Bearer ${key}`, ...headers }).post('/v1/chat/completions', { model: 'sim-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 3, ...body });
  const usageOf = async (key: string, keyId: string, count: number): Promise<UsageRow[]> =>
    (await eventually(() => gw.http({ Authorization: `Bearer ${key}` }).get(`/api/usage?keyId=${keyId}&limit=100`), (r) => r.status === 200 && r.body.meta.total >= count)).body.data;
  const spendOf = async (key: string, keyId: string) => (await gw.http({ Authorization: `Bearer ${key}` }).get(`/api/spend?keyId=${keyId}`)).body;

  it('records one usage event per call and /api/spend (per key, model, day) is their sum', async () => {
    const { id, key } = await mint();
    for (let i = 0; i < 3; i++) expect((await chat(gw, key, { max_tokens: 20 })).status).toBe(200);
    const rows = await usageOf(key, id, 3);
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.attributes).toMatchObject({ keyId: id, model: 'sim-mini', attempt: 1, inputTokens: 1, outputTokens: 7, outcome: 'completed' });
    const spend = await eventually(() => spendOf(key, id), (b) => b.data?.[0]?.attributes.requests === 3);
    expect(spend.data).toHaveLength(1);
    expect(spend.data[0].attributes).toMatchObject({ keyId: id, model: 'sim-mini', day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), inputTokens: 3, outputTokens: 21 });
    expect(spend.data[0].attributes.costUsd).toBeCloseTo(rows.reduce((s, r) => s + r.attributes.costUsd, 0), 9);
    expect(spend.meta).toMatchObject({ page: 1, total: 1 });
    // Another organization sees none of it.
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'other org' });
    const otherCookie = await openSession(gw, project.body.included[0].attributes.key);
    const other = await gw.http({ cookie: otherCookie }).post('/api/keys', { name: 'o' });
    const theirs = await gw.http({ Authorization: `Bearer ${other.body.data.attributes.key}` }).get(`/api/usage?keyId=${id}`);
    expect(theirs.body.meta.total).toBe(0);
  });

  it('records usage idempotently on (request id, attempt)', async () => {
    const usage = { requestId: 'req_idem', attempt: 1, keyId: 'k', projectId: srv.bootstrap.scope, mode: 'test' as const, model: 'sim-mini', upstream: 'simulator', inputTokens: 1, outputTokens: 1, costMicros: 1, latencyMs: 0, outcome: 'completed' as const, day: '2026-11-27', recordedAt: '2026-11-27T00:00:00.000Z' };
    expect(await recordUsage(srv.platform.events, usage, { metadata: { actor: 'test' } })).toBe(true);
    expect(await recordUsage(srv.platform.events, usage, { metadata: { actor: 'test' } })).toBe(false);
    expect(await recordUsage(srv.platform.events, { ...usage, attempt: 2 }, { metadata: { actor: 'test' } })).toBe(true);
    expect(await srv.platform.events.readStream('gwusage-req_idem:1')).toHaveLength(1);
  });

  it('64 concurrent calls against a cap with room for 10 admit at most 10, over two gateways, and the spend never passes the cap', async () => {
    // Each call reserves its worst case (1 input byte at 0.15 + 3 output tokens at 0.6 per million = 2
    // micro-dollars) and costs exactly that, so a cap of 20 micro-dollars has room for 10.
    const { id, key } = await mint({ monthlySpendCapUsd: 0.00002 });
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => chat(i % 2 ? gw2 : gw, key)));
    const admitted = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted + refused.length).toBe(64);
    expect(admitted).toBeLessThanOrEqual(10);
    expect(admitted).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r.headers['x-should-retry']).toBe('false');
      expect(r.body.error).toMatchObject({ type: 'insufficient_quota' });
    }
    const rows = await usageOf(key, id, admitted);
    const spentMicros = rows.reduce((s, r) => s + Math.round(r.attributes.costUsd * 1e6), 0);
    expect(rows).toHaveLength(admitted);
    expect(spentMicros).toBeLessThanOrEqual(20);
    // The cap's reservations are all settled: the budget stream holds one settlement per admitted call.
    const month = new Date(clock.now()).toISOString().slice(0, 7);
    const budget = await srv.platform.events.readStream(`gwbudget-${id}:${month}`);
    expect(budget.filter((e) => e.type === 'gateway.SpendSettled.v1')).toHaveLength(admitted);
    expect(budget.filter((e) => e.type === 'gateway.SpendSettled.v1').reduce((s, e) => s + (e.data as { actualMicros: number }).actualMicros, 0)).toBe(spentMicros);
  });

  it('counts requests per minute exactly across two gateways; the refusal says retry-after', async () => {
    // Start of a minute window, so that all calls fall in one.
    clock.advance(60_000 - (clock.now() % 60_000) + 1000);
    const { key } = await mint({ rpm: 5 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(i % 2 ? gw2 : gw, key)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(7);
    for (const r of limited) expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('bills a client that disconnects at chunk k for what was streamed, once', async () => {
    const { id, key } = await mint();
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, fetch: insecureFetch, maxRetries: 0, defaultHeaders: { 'x-simulator-tokens': '40', 'x-simulator-chunk-delay-ms': '1000' } });
    const stream = await client.chat.completions.create({ model: 'sim-mini', max_tokens: 40, stream: true, messages: [{ role: 'user', content: 'long story' }] });
    let content = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) content++;
      if (content === 3) break;
    }
    const [row] = await usageOf(key, id, 1);
    expect(row.attributes).toMatchObject({ outcome: 'disconnected', outputTokens: 3, attempt: 1 });
    const budget = await eventually(
      async () => (await srv.platform.events.readStream(`gwbudget-${id}:${new Date(clock.now()).toISOString().slice(0, 7)}`)).map((e) => e.type),
      (types) => types.includes('gateway.SpendSettled.v1'),
    );
    expect(budget).toEqual(['gateway.SpendReserved.v1', 'gateway.SpendSettled.v1']);
    const rows = await usageOf(key, id, 1);
    expect(rows).toHaveLength(1);
  });
});
