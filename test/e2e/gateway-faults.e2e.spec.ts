import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { insecureFetch, openSession, startTestGateway, type TestGateway } from './gateway.support';

type Route = 'chat' | 'responses' | 'messages';
type Failure = '503' | '429' | 'timeout';
/** Content chunks sent before the fault: 0 = before the first byte, 1, mid-stream, after the last (8 of 8). */
const POSITIONS = [0, 1, 4, 8] as const;
const TOKENS = 8;
const FULL = 'Simulated answer of sim-mini to: fault matrix (end)';

/**
 * The fault matrix (DECISIONS 19): the simulator fails the waterfall's first upstream with a 5xx, a
 * 429 or a timeout at a chunk the test chooses. Every case ends in a complete answer (failover before
 * the first content byte reached the client) or a typed SDK exception, never a silent truncation; the
 * usage events are one per attempt that produced tokens.
 */
describe.each<Profile>(['embedded', 'server'])('gateway fault matrix (%s profile)', (profile) => {
  let srv: TestServer;
  let gw: TestGateway;
  let key: string;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    gw = await startTestGateway(srv, { upstreamTimeoutMs: 300 });
    const cookie = await openSession(gw, srv.bootstrap.apiKey);
    key = (await gw.http({ cookie }).post('/api/keys', { name: 'faults' })).body.data.attributes.key;
    // The waterfall: the simulator twice, so a failure of the first attempt can fail over to the second.
    const set = await gw.http({ Authorization: `Bearer ${key}` }).send('PUT', '/api/models/sim-mini/waterfall', { targets: [{ connectionId: 'simulator' }, { connectionId: 'simulator' }] });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await gw?.close();
    await srv?.stop();
  });

  const headers = (failure: Failure, at: number) => ({ 'x-simulator-fault': `${failure}@${at},ok`, 'x-simulator-tokens': String(TOKENS) });

  /** Calls one route with one SDK; returns the request id, the text received and the error raised, if any. */
  async function call(route: Route, stream: boolean, h: Record<string, string>): Promise<{ requestId: string | null | undefined; text: string; error?: unknown }> {
    const input = 'fault matrix';
    let text = '';
    let requestId: string | null | undefined;
    try {
      if (route === 'messages') {
        const client = new Anthropic({ apiKey: key, baseURL: gw.url, fetch: insecureFetch, maxRetries: 0, defaultHeaders: h });
        if (!stream) {
          const r = await client.messages.create({ model: 'sim-mini', max_tokens: 50, messages: [{ role: 'user', content: input }] }).withResponse();
          requestId = r.request_id;
          text = r.data.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        } else {
          const r = await client.messages.create({ model: 'sim-mini', max_tokens: 50, stream: true, messages: [{ role: 'user', content: input }] }).withResponse();
          requestId = r.request_id;
          for await (const e of r.data) if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
        }
      } else {
        const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, fetch: insecureFetch, maxRetries: 0, defaultHeaders: h });
        if (route === 'chat' && !stream) {
          const r = await client.chat.completions.create({ model: 'sim-mini', messages: [{ role: 'user', content: input }] }).withResponse();
          requestId = r.request_id;
          text = r.data.choices[0].message.content ?? '';
        } else if (route === 'chat') {
          const r = await client.chat.completions.create({ model: 'sim-mini', stream: true, messages: [{ role: 'user', content: input }] }).withResponse();
          requestId = r.request_id;
          for await (const c of r.data) text += c.choices[0]?.delta.content ?? '';
        } else if (!stream) {
          const r = await client.responses.create({ model: 'sim-mini', input }).withResponse();
          requestId = r.request_id;
          text = r.data.output_text;
        } else {
          const r = await client.responses.create({ model: 'sim-mini', input, stream: true }).withResponse();
          requestId = r.request_id;
          for await (const e of r.data) if (e.type === 'response.output_text.delta') text += e.delta;
        }
      }
      return { requestId, text };
    } catch (error) {
      return { requestId, text, error };
    }
  }

  const usageOf = async (requestId: string, attempt: number) => (await srv.platform.events.readStream(`gwusage-${requestId}:${attempt}`)).map((e) => e.data as { outputTokens: number; outcome: string; upstream: string });

  const cases: [Route, boolean, Failure, number][] = [];
  for (const route of ['chat', 'responses', 'messages'] as Route[]) for (const stream of [false, true]) for (const failure of ['503', '429', 'timeout'] as Failure[]) for (const at of POSITIONS) cases.push([route, stream, failure, at]);

  it.each(cases)('%s stream=%s: %s at chunk %d', async (route, stream, failure, at) => {
    const r = await call(route, stream, headers(failure, at));
    expect(r.requestId).toMatch(/^req_/);
    const first = await usageOf(r.requestId!, 1);
    const second = await usageOf(r.requestId!, 2);
    const failsOver = at === 0 || !stream;
    if (failsOver) {
      // Nothing had reached the client: the next upstream answers in full.
      expect(r.error).toBeUndefined();
      expect(r.text).toBe(FULL);
      expect(second).toEqual([expect.objectContaining({ outputTokens: TOKENS, outcome: 'completed', upstream: 'simulator' })]);
      expect(first).toEqual(at === 0 ? [] : [expect.objectContaining({ outputTokens: at, outcome: 'failed', upstream: 'simulator' })]);
    } else {
      // Content had been streamed: the answer ends with the vendor's error frame, which the SDK raises.
      expect(r.error).toBeInstanceOf(route === 'messages' ? Anthropic.APIError : OpenAI.APIError);
      expect(FULL.startsWith(r.text)).toBe(true);
      expect(r.text.split(' ').filter(Boolean)).toHaveLength(at);
      expect(first).toEqual([expect.objectContaining({ outputTokens: at, outcome: 'failed' })]);
      expect(second).toEqual([]);
    }
  });

  it.each(['503', '429', 'timeout'] as Failure[])('every upstream failing with %s before the first byte: a typed exception, nothing billed', async (failure) => {
    const h = { 'x-simulator-fault': `${failure}@0,${failure}@0` };
    const chat = await call('chat', true, h);
    const messages = await call('messages', false, h);
    const expected = failure === '429' ? [OpenAI.RateLimitError, Anthropic.RateLimitError] : [OpenAI.InternalServerError, Anthropic.InternalServerError];
    expect(chat.error).toBeInstanceOf(expected[0]);
    expect(messages.error).toBeInstanceOf(expected[1]);
    const rid = (chat.error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-request-id');
    expect(rid).toMatch(/^req_/);
    expect(await usageOf(rid!, 1)).toEqual([]);
    expect(await usageOf(rid!, 2)).toEqual([]);
  });
});
