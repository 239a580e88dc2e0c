import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { insecureFetch, openSession, startTestGateway, type TestGateway } from './gateway.support';

/**
 * The official SDKs, pinned, pointed at the running gateway and changed in nothing else (DECISIONS 19):
 * every shape they parse, their streams, request ids and typed errors.
 */
describe.each<Profile>(['embedded', 'server'])('gateway with the official openai and @anthropic-ai/sdk clients (%s profile)', (profile) => {
  let srv: TestServer;
  let gw: TestGateway;
  let cookie: string;
  let key: string;
  let calls = 0;
  const counting = ((...args: Parameters<typeof fetch>) => {
    calls++;
    return insecureFetch(...args);
  }) as typeof fetch;
  const openai = (apiKey = key, base = '/v1', maxRetries = 0) => new OpenAI({ apiKey, baseURL: `${gw.url}${base}`, fetch: counting, maxRetries });
  const anthropic = (auth: { apiKey?: string; authToken?: string } = { apiKey: key }, maxRetries = 0) => new Anthropic({ ...auth, baseURL: gw.url, fetch: counting, maxRetries });
  const mint = async (limits: Record<string, unknown> = {}) => {
    const res = await gw.http({ cookie }).post('/api/keys', { name: 'sdk', limits });
    expect(res.status).toBe(201);
    return res.body.data.attributes.key as string;
  };

  beforeAll(async () => {
    srv = await startTestServer(profile);
    gw = await startTestGateway(srv);
    cookie = await openSession(gw, srv.bootstrap.apiKey);
    key = await mint();
  });
  afterAll(async () => {
    await gw?.close();
    await srv?.stop();
  });

  it('lists the models', async () => {
    const page = await openai().models.list();
    expect(page.data.map((m) => m.id)).toEqual(expect.arrayContaining(['sim-mini', 'sim-pro']));
    expect(page.data[0]).toMatchObject({ object: 'model', owned_by: expect.any(String) });
  });

  it('answers a chat completion with usage, finish_reason and the request id', async () => {
    const { data, request_id } = await openai().chat.completions.create({ model: 'sim-mini', messages: [{ role: 'user', content: 'hello there gateway' }] }).withResponse();
    expect(request_id).toMatch(/^req_/);
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message).toMatchObject({ role: 'assistant', content: 'Simulated answer of sim-mini to: hello there gateway (end)' });
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
    const short = await openai().chat.completions.create({ model: 'sim-mini', max_tokens: 3, messages: [{ role: 'user', content: 'hello' }] });
    expect(short.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Simulated answer of' } });
  });

  it('streams a chat completion: the same text, finish_reason, the usage chunk with include_usage', async () => {
    const stream = await openai().chat.completions.create({ model: 'sim-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hello there gateway' }] });
    let text = '';
    const finish: (string | null)[] = [];
    let usage: unknown = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      for (const c of chunk.choices) {
        text += c.delta.content ?? '';
        if (c.finish_reason) finish.push(c.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Simulated answer of sim-mini to: hello there gateway (end)');
    expect(finish).toEqual(['stop']);
    expect(usage).toEqual({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 });
    // The raw stream: no event: lines on chat streams, and it ends with data: [DONE].
    const raw = await insecureFetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim-mini', stream: true, messages: [{ role: 'user', content: 'x' }] }) });
    const body = await raw.text();
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(body).not.toMatch(/^event:/m);
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('answers responses, plain and streamed', async () => {
    const plain = await openai().responses.create({ model: 'sim-pro', input: 'tell me more', instructions: 'be brief' });
    expect(plain.status).toBe('completed');
    expect(plain.output_text).toBe('Simulated answer of sim-pro to: tell me more (end)');
    expect(plain.usage).toMatchObject({ output_tokens: 9 });
    const stream = await openai().responses.create({ model: 'sim-pro', input: [{ role: 'user', content: 'tell me more' }], stream: true });
    let text = '';
    const types: string[] = [];
    let completed: unknown;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe('Simulated answer of sim-pro to: tell me more (end)');
    // The completed response carries the whole answer, as the non-streamed one does.
    expect(completed).toMatchObject({ status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }] });
    expect(types[0]).toBe('response.created');
    expect(types[types.length - 1]).toBe('response.completed');
  });

  it.each([['apiKey'], ['authToken']] as const)('answers messages plain and streamed with %s', async (how) => {
    const client = anthropic({ [how]: key });
    const { data, request_id } = await client.messages.create({ model: 'sim-pro', max_tokens: 100, system: 'be brief', messages: [{ role: 'user', content: 'hello claude' }] }).withResponse();
    expect(request_id).toMatch(/^req_/);
    expect(data).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Simulated answer of sim-pro to: hello claude (end)' }], usage: { output_tokens: 8 } });
    const stream = client.messages.stream({ model: 'sim-pro', max_tokens: 4, messages: [{ role: 'user', content: 'hello claude' }] });
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const final = await stream.finalMessage();
    expect(deltas.join('')).toBe('Simulated answer of sim-pro');
    expect(final).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: 'Simulated answer of sim-pro' }], usage: { output_tokens: 4 } });
    const raw = await insecureFetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim-mini', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'x' }] }) });
    const frames = (await raw.text()).trim().split('\n\n');
    for (const f of frames) expect(f).toMatch(/^event: [a-z_]+\ndata: \{/);
    const noVersion = await gw.http({ 'x-api-key': key }).post('/v1/messages', { model: 'sim-mini', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('anthropic-version') } });
  });

  it('raises the typed errors: 401, 403, 404, 429 (a cap is not retried, a rate limit says retry-after)', async () => {
    await expect(openai('gwk_' + 'a'.repeat(40)).models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(anthropic({ apiKey: 'nope' }).messages.create({ model: 'sim-mini', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(openai(key, '').post('/api/keys', { body: { name: 'x' } })).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    await expect(anthropic().post('/api/keys', { body: { name: 'x' } })).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    const missing = openai().chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] });
    await expect(missing).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(anthropic().messages.create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.NotFoundError);

    const capped = await mint({ monthlySpendCapUsd: 0 });
    calls = 0;
    const refused = await openai(capped, '/v1', 3).chat.completions.create({ model: 'sim-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(calls).toBe(1);
    calls = 0;
    const refusedA = await anthropic({ apiKey: capped }, 3).messages.create({ model: 'sim-mini', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(refusedA).toBeInstanceOf(Anthropic.RateLimitError);
    expect(refusedA.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(calls).toBe(1);

    const slow = await mint({ rpm: 1 });
    await openai(slow).models.list();
    await openai(slow).chat.completions.create({ model: 'sim-mini', messages: [{ role: 'user', content: 'x' }] });
    const limited = await openai(slow).chat.completions.create({ model: 'sim-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
