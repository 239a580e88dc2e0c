import Anthropic from '@anthropic-ai/sdk';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import OpenAI from 'openai';
import { startTestServer, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { insecureFetch, openSession, startTestGateway, type TestGateway } from './gateway.support';

const UP_SECRET = 'sk-upstream-secret-0123456789';
const TOOL = { name: 'get_weather', description: 'The weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const RESULT = '18C and sunny';

/** What each upstream peer last received: the gateway's translation of the client's request. */
const received: { openai?: Record<string, any>; anthropic?: Record<string, any> } = {}; // eslint-disable-line @typescript-eslint/no-explicit-any

const sse = (reply: FastifyReply, frames: string[]) => {
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const f of frames) reply.raw.write(f);
  reply.raw.end();
};

/**
 * An OpenAI-compatible upstream peer on loopback: chat completions in the vendor's exact framing (no
 * `event:` lines, tool-call argument deltas, the usage chunk, `data: [DONE]`). Asked with tools and no
 * tool result yet, it calls get_weather; given a result, it answers with what the tool said.
 */
async function openaiPeer(): Promise<FastifyInstance> {
  const app = Fastify();
  app.get('/v1/models', async (req, reply) => (req.headers.authorization === `Bearer ${UP_SECRET}` ? { object: 'list', data: [{ id: 'up-gpt', object: 'model', created: 1, owned_by: 'peer' }] } : reply.code(401).send({ error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7, 12)}***`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } })));
  app.post('/v1/chat/completions', async (req, reply) => {
    const body = req.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    received.openai = body;
    if (req.headers.authorization !== `Bearer ${UP_SECRET}` || body.stream !== true) return reply.code(400).send({ error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } });
    const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const usage = `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } })}\n\n`;
    const tool = body.messages.find((m: { role: string }) => m.role === 'tool');
    if (body.tools && !tool)
      return sse(reply, [
        chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_up_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({}, 'tool_calls'),
        usage,
        'data: [DONE]\n\n',
      ]);
    const text = tool ? `tool ${tool.tool_call_id} said ${tool.content}` : 'plain answer';
    return sse(reply, [chunk({ role: 'assistant', content: '' }), chunk({ content: text.slice(0, 6) }), chunk({ content: text.slice(6) }), chunk({}, 'stop'), usage, 'data: [DONE]\n\n']);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app;
}

/** Anthropic takes its key as `x-api-key`; the pinned SDK sends `Authorization: Bearer`, which it accepts too. */
const anthropicKey = (h: Record<string, unknown>) => h['x-api-key'] ?? String(h.authorization ?? '').replace(/^Bearer /, '');

/** An Anthropic-compatible upstream peer: messages in the vendor's framing (an `event:` line on every frame, input_json_delta, cumulative usage). */
async function anthropicPeer(): Promise<FastifyInstance> {
  const app = Fastify();
  app.get('/v1/models', async (req, reply) => (anthropicKey(req.headers) === UP_SECRET ? { data: [{ id: 'up-claude', type: 'model', display_name: 'Up', created_at: '2026-01-01T00:00:00Z' }], has_more: false, first_id: 'up-claude', last_id: 'up-claude' } : reply.code(401).send({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } })));
  app.post('/v1/messages', async (req, reply) => {
    const body = req.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    received.anthropic = body;
    if (anthropicKey(req.headers) !== UP_SECRET || body.stream !== true || typeof req.headers['anthropic-version'] !== 'string') return reply.code(400).send({ type: 'error', error: { type: 'invalid_request_error', message: 'bad' } });
    const f = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const start = f('message_start', { message: { id: 'msg_up', type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, output_tokens: 1 } } });
    const last = body.messages[body.messages.length - 1];
    const result = Array.isArray(last.content) ? last.content.find((b: { type: string }) => b.type === 'tool_result') : undefined;
    if (body.tools && !result)
      return sse(reply, [
        start,
        f('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        f('ping', {}),
        f('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Let me check.' } }),
        f('content_block_stop', { index: 0 }),
        f('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_up_1', name: 'get_weather', input: {} } }),
        f('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
        f('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
        f('content_block_stop', { index: 1 }),
        f('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 7 } }),
        f('message_stop', {}),
      ]);
    const said = typeof result?.content === 'string' ? result.content : result?.content?.map((b: { text: string }) => b.text).join('');
    const text = result ? `tool ${result.tool_use_id} said ${said}` : 'plain answer';
    return sse(reply, [
      start,
      f('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      f('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(0, 6) } }),
      f('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(6) } }),
      f('content_block_stop', { index: 0 }),
      f('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }),
      f('message_stop', {}),
    ]);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app;
}

const urlOf = (app: FastifyInstance) => {
  const a = app.server.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
};

type Client = 'chat' | 'responses' | 'messages';
interface Round {
  text: string;
  call?: { id: string; name: string; arguments: string };
  requestId: string;
}

/**
 * The HTTP upstreams (DECISIONS 19) against real peers speaking the vendors' protocols on loopback,
 * through the official SDKs as clients of the gateway: provider connections (secret write-only,
 * verify), custom models on them, and a tool call round trip across every client × upstream pair,
 * streamed and not.
 */
describe('gateway HTTP upstreams (embedded profile)', () => {
  let srv: TestServer;
  let gw: TestGateway;
  let key: string;
  let liveCloudKey: string;
  let peers: FastifyInstance[];
  const conn: Record<'openai' | 'anthropic', string> = { openai: '', anthropic: '' };
  const api = () => gw.http({ Authorization: `Bearer ${key}` });

  beforeAll(async () => {
    peers = [await openaiPeer(), await anthropicPeer()];
    srv = await startTestServer('embedded');
    gw = await startTestGateway(srv, { upstreamTimeoutMs: 5000 });
    // A live credential: test-mode keys run on the simulator only (DECISIONS 21), never on a connection.
    const live = await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    expect(live.status).toBe(201);
    liveCloudKey = live.body.data.attributes.key;
    const cookie = await openSession(gw, liveCloudKey);
    key = (await gw.http({ cookie }).post('/api/keys', { name: 'upstreams' })).body.data.attributes.key;
  });
  afterAll(async () => {
    await gw?.close();
    await srv?.stop();
    for (const p of peers ?? []) await p.close();
  });

  it('adds connections with a write-only secret, verifies them with a call upstream, lists them', async () => {
    for (const [kind, base] of [['openai', `${urlOf(peers[0])}/v1`], ['anthropic', urlOf(peers[1])]] as const) {
      const res = await api().post('/api/providers', { name: `${kind} peer`, kind, baseUrl: base, secret: UP_SECRET });
      expect(res.status).toBe(201);
      expect(res.body.data.attributes).toEqual(expect.objectContaining({ kind, baseUrl: base, status: 'unverified' }));
      expect(JSON.stringify(res.body)).not.toContain(UP_SECRET);
      expect(JSON.stringify(res.body)).not.toContain('cred_');
      conn[kind] = res.body.data.id;
      const verified = await api().post(`/api/providers/${conn[kind]}/verify`, {});
      expect(verified.status).toBe(200);
      expect(verified.body.data.attributes).toEqual(expect.objectContaining({ status: 'verified', models: 1, lastError: null }));
      // The events carry the vault's reference, never the secret.
      const events = await srv.platform.events.readStream(`gwconn-${conn[kind]}`);
      expect(events.map((e) => e.type)).toEqual(['gateway.ConnectionAdded.v1', 'gateway.ConnectionVerified.v1']);
      expect(JSON.stringify(events)).not.toContain(UP_SECRET);
    }
    const wrong = await api().post('/api/providers', { name: 'wrong key', kind: 'openai', baseUrl: `${urlOf(peers[0])}/v1`, secret: 'sk-wrong-secret-000' });
    const failed = await api().post(`/api/providers/${wrong.body.data.id}/verify`, {});
    expect(failed.body.data.attributes).toEqual(expect.objectContaining({ status: 'failed', lastError: 'upstream answered 401' }));
    expect(JSON.stringify(failed.body)).not.toContain('sk-wr');
    const list = await api().get('/api/providers?kind=openai&sort=createdAt');
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([conn.openai, wrong.body.data.id]);
    expect(list.body.meta).toEqual(expect.objectContaining({ total: 2 }));
    expect(await api().post('/api/providers', { name: 'x', kind: 'openai', baseUrl: 'http://user:pw@example.com/v1', secret: 's' })).toEqual(expect.objectContaining({ status: 400 }));
    expect((await api().delete(`/api/providers/${wrong.body.data.id}`)).status).toBe(204);
    expect((await api().get(`/api/providers/${wrong.body.data.id}`)).status).toBe(404);
  });

  it('creates custom models on the connections: listed with the key, not without it', async () => {
    for (const [id, kind, upstreamModel] of [['team-gpt', 'openai', 'up-gpt'], ['team-claude', 'anthropic', 'up-claude']] as const) {
      const res = await api().post('/api/models', { id, connectionId: conn[kind], upstreamModel, price: { inputPerMTok: 2, outputPerMTok: 10 }, maxOutputTokens: 1000 });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual(expect.objectContaining({ id, attributes: expect.objectContaining({ source: 'custom', connectionId: conn[kind], upstreamModel }) }));
    }
    expect((await api().post('/api/models', { id: 'sim-mini', connectionId: conn.openai, upstreamModel: 'x', price: { inputPerMTok: 1, outputPerMTok: 1 } })).status).toBe(409);
    expect((await api().post('/api/models', { id: 'nowhere', connectionId: 'conn_missing', upstreamModel: 'x', price: { inputPerMTok: 1, outputPerMTok: 1 } })).status).toBe(404);
    const withKey = (await api().get('/api/models?limit=100')).body.data.map((m: { id: string }) => m.id);
    expect(withKey).toEqual(expect.arrayContaining(['sim-mini', 'team-gpt', 'team-claude']));
    const keyless = (await gw.http().get('/api/models')).body.data.map((m: { id: string }) => m.id);
    expect(keyless).not.toContain('team-gpt');
    const models = await new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, fetch: insecureFetch, maxRetries: 0 }).models.list();
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['team-gpt', 'team-claude']));
  });

  it("creates local models served by the organization's own upstream: in its catalog (source local), callable by name, free unless priced, invisible to others", async () => {
    // The model as the organization's server names it; no price: the organization runs that server itself.
    const res = await api().post('/api/models', { id: 'up-gpt', kind: 'local', connectionId: conn.openai, maxOutputTokens: 500 });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: 'up-gpt', type: 'models', attributes: expect.objectContaining({ source: 'local', ownedBy: 'organization', connectionId: conn.openai, upstreamModel: 'up-gpt', price: { inputPerMTok: 0, outputPerMTok: 0 }, maxOutputTokens: 500 }) });
    // Priced, and named differently upstream.
    const priced = await api().post('/api/models', { id: 'house-claude', kind: 'local', connectionId: conn.anthropic, upstreamModel: 'up-claude', price: { inputPerMTok: 1, outputPerMTok: 1 } });
    expect(priced.body.data.attributes).toEqual(expect.objectContaining({ source: 'local', upstreamModel: 'up-claude' }));
    // A local model is served by a connection of the organization: not the simulator, not another's.
    const onSimulator = await api().post('/api/models', { id: 'fake-local', kind: 'local', connectionId: 'simulator' });
    expect([onSimulator.status, onSimulator.body.error.type]).toEqual([400, 'invalid_request_error']);
    expect((await api().patch('/api/models/up-gpt', { connectionId: 'simulator' })).status).toBe(400);
    expect((await api().post('/api/models', { id: 'no-conn', kind: 'local', connectionId: 'conn_missing' })).status).toBe(404);
    // A custom model still needs its upstream name and price.
    expect((await api().post('/api/models', { id: 'unpriced', connectionId: conn.openai, upstreamModel: 'x' })).body.error).toEqual(expect.objectContaining({ param: 'price' }));
    expect((await api().get('/api/models/up-gpt')).body.data.attributes.source).toBe('local');
    const listed = (await api().get('/api/models?limit=100')).body.data as { id: string; attributes: { source: string } }[];
    expect(listed.filter((m) => m.attributes.source === 'local').map((m) => m.id).sort()).toEqual(['house-claude', 'up-gpt']);
    expect((await gw.http().get('/api/models?limit=100')).body.data.map((m: { id: string }) => m.id)).not.toContain('up-gpt');
    expect((await gw.http().get('/api/models/up-gpt')).status).toBe(404);
    expect((await openai().models.list()).data.map((m) => m.id)).toEqual(expect.arrayContaining(['up-gpt', 'house-claude']));
    // Called by its name, it reaches the organization's upstream under that name; usage is recorded at its (zero) price.
    const { data, request_id } = await openai().chat.completions.create({ model: 'up-gpt', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.model).toBe('up-gpt');
    expect(received.openai!.model).toBe('up-gpt');
    const usage = (await srv.platform.events.readStream(`gwusage-${request_id}:1`)).map((e) => e.data);
    expect(usage).toEqual([expect.objectContaining({ model: 'up-gpt', upstream: conn.openai, costMicros: 0, outcome: 'completed' })]);
    // Another organization sees none of it, nor may call it.
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'other org' });
    const otherCookie = await openSession(gw, project.body.included[0].attributes.key);
    const otherKey = (await gw.http({ cookie: otherCookie }).post('/api/keys', { name: 'o' })).body.data.attributes.key;
    const other = gw.http({ Authorization: `Bearer ${otherKey}` });
    expect((await other.get('/api/models?limit=100')).body.data.map((m: { id: string }) => m.id)).not.toContain('up-gpt');
    expect((await other.get('/api/models/up-gpt')).status).toBe(404);
    expect((await other.post('/v1/chat/completions', { model: 'up-gpt', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
    expect((await other.delete('/api/models/up-gpt')).status).toBe(404);
    expect((await api().delete('/api/models/house-claude')).status).toBe(204);
    expect((await api().get('/api/models/house-claude')).status).toBe(404);
  });

  const openai = () => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, fetch: insecureFetch, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: key, baseURL: gw.url, fetch: insecureFetch, maxRetries: 0 });
  const QUESTION = 'Weather in Paris?';

  /** First round: the model calls the tool. Second: the client sends its result back. Each through the SDK's own stream helper when streamed. */
  async function round(client: Client, model: string, stream: boolean, call?: Round['call']): Promise<Round> {
    if (client === 'chat') {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
      if (call) messages.push({ role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] }, { role: 'tool', tool_call_id: call.id, content: RESULT });
      const params = { model, messages, tools: [{ type: 'function' as const, function: TOOL }] };
      const { data, request_id } = stream ? { data: await openai().chat.completions.stream(params).finalChatCompletion(), request_id: '' } : await openai().chat.completions.create(params).withResponse();
      const m = data.choices[0].message;
      const tc = m.tool_calls?.[0];
      return { text: m.content ?? '', call: tc && tc.type === 'function' ? { id: tc.id, name: tc.function.name, arguments: tc.function.arguments } : undefined, requestId: request_id ?? '' };
    }
    if (client === 'responses') {
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: QUESTION }];
      if (call) input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.id, output: RESULT });
      const params = { model, input, tools: [{ type: 'function' as const, name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters, strict: false }] };
      const data = stream ? await openai().responses.stream(params).finalResponse() : await openai().responses.create(params);
      const fc = data.output.find((o) => o.type === 'function_call');
      return { text: data.output_text, call: fc && fc.type === 'function_call' ? { id: fc.call_id, name: fc.name, arguments: fc.arguments } : undefined, requestId: '' };
    }
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: QUESTION }];
    if (call) messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: RESULT }] });
    const params = { model, max_tokens: 500, messages, tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters as Anthropic.Tool.InputSchema }] };
    const data = stream ? await anthropic().messages.stream(params).finalMessage() : await anthropic().messages.create(params);
    const tu = data.content.find((b) => b.type === 'tool_use');
    const text = data.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { text, call: tu && tu.type === 'tool_use' ? { id: tu.id, name: tu.name, arguments: JSON.stringify(tu.input) } : undefined, requestId: '' };
  }

  const cases: [Client, 'openai' | 'anthropic', boolean][] = [];
  for (const client of ['chat', 'responses', 'messages'] as Client[]) for (const up of ['openai', 'anthropic'] as const) for (const stream of [false, true]) cases.push([client, up, stream]);

  it.each(cases)('%s client, %s upstream, stream=%s: a tool call and its result round trip', async (client, up, stream) => {
    const model = up === 'openai' ? 'team-gpt' : 'team-claude';
    const upstreamId = up === 'openai' ? 'call_up_1' : 'toolu_up_1';
    const first = await round(client, model, stream);
    expect(first.call).toEqual({ id: upstreamId, name: 'get_weather', arguments: expect.any(String) });
    expect(JSON.parse(first.call!.arguments)).toEqual({ city: 'Paris' });
    if (up === 'anthropic') expect(first.text).toBe('Let me check.');
    // The upstream received the tools in its own wire shape.
    if (up === 'openai') expect(received.openai!.tools).toEqual([{ type: 'function', function: TOOL }]);
    else expect(received.anthropic!.tools).toEqual([{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters }]);

    const second = await round(client, model, stream, first.call);
    expect(second.call).toBeUndefined();
    expect(second.text).toBe(`tool ${upstreamId} said ${RESULT}`);
    // …and the tool call and result in its own shape, with the model name of the connection.
    if (up === 'openai') {
      expect(received.openai!.model).toBe('up-gpt');
      expect(received.openai!.messages.slice(1)).toEqual([
        { role: 'assistant', content: null, tool_calls: [{ id: upstreamId, type: 'function', function: { name: 'get_weather', arguments: expect.any(String) } }] },
        { role: 'tool', tool_call_id: upstreamId, content: RESULT },
      ]);
    } else {
      expect(received.anthropic!.model).toBe('up-claude');
      expect(received.anthropic!.messages.slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'tool_use', id: upstreamId, name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: upstreamId, content: RESULT }] },
      ]);
    }
  });

  it('records usage per attempt with the upstream counts, the connection and the custom price', async () => {
    const { data, request_id } = await openai().chat.completions.create({ model: 'team-claude', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.choices[0].message.content).toBe('plain answer');
    expect(data.usage).toEqual(expect.objectContaining({ prompt_tokens: 11, completion_tokens: 7 }));
    const usage = (await srv.platform.events.readStream(`gwusage-${request_id}:1`)).map((e) => e.data);
    // 11 × 2 + 7 × 10 micro-dollars at the custom model's price.
    expect(usage).toEqual([expect.objectContaining({ model: 'team-claude', upstream: conn.anthropic, inputTokens: 11, outputTokens: 7, costMicros: 92, outcome: 'completed' })]);
  });

  it('fails over along the waterfall of a model before the first byte: the unreachable connection, then the simulator', async () => {
    const set = await api().send('PUT', '/api/models/team-gpt/waterfall', { targets: [{ connectionId: conn.openai, model: 'up-gpt' }, { connectionId: 'simulator', model: 'sim-mini' }] });
    expect(set.status).toBe(200);
    expect(set.body.data.attributes.targets).toEqual([{ connectionId: conn.openai, model: 'up-gpt' }, { connectionId: 'simulator', model: 'sim-mini' }]);
    // The OpenAI-compatible peer goes away: its step fails before any byte, the next one answers.
    await peers[0].close();
    const r = await openai().chat.completions.create({ model: 'team-gpt', messages: [{ role: 'user', content: 'after the outage' }] }).withResponse();
    expect(r.data.choices[0].message.content).toBe('Simulated answer of sim-mini to: after the outage (end)');
    const second = (await srv.platform.events.readStream(`gwusage-${r.request_id}:2`)).map((e) => e.data);
    expect(second).toEqual([expect.objectContaining({ model: 'team-gpt', upstream: 'simulator', outcome: 'completed' })]);
  });

  it("spends what the usage events say: /api/spend is their sum, and the project's /v1/billing/usage shows it per model", async () => {
    for (let i = 0; i < 3; i++) expect((await openai().chat.completions.create({ model: 'sim-pro', messages: [{ role: 'user', content: `bill me ${i}` }] })).choices[0].message.content).toMatch(/^Simulated answer of sim-pro/);
    const scope = srv.bootstrap.projectId;
    const recorded = (await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100_000 })).filter((e) => e.type === 'gateway.UsageRecorded.v1' && (e.data as { projectId: string }).projectId === scope).map((e) => e.data as { model: string; costMicros: number });
    const total = recorded.reduce((n, u) => n + u.costMicros, 0);
    expect(total).toBeGreaterThan(0);
    const spendSum = async () => ((await api().get('/api/spend?limit=100')).body.data as { attributes: { costMicros: number } }[]).reduce((n, d) => n + d.attributes.costMicros, 0);
    expect(await eventually(spendSum, (v) => v === total)).toBe(total);

    const perModel = new Map<string, { micros: number; calls: number }>();
    for (const u of recorded) perModel.set(u.model, { micros: (perModel.get(u.model)?.micros ?? 0) + u.costMicros, calls: (perModel.get(u.model)?.calls ?? 0) + 1 });
    const usage = (await srv.as(liveCloudKey).get('/v1/billing/usage')).body;
    const rows = (usage.data as { id: string; attributes: { resourceType: string; resourceId: string; costCents: number; calls: number } }[]).filter((r) => r.attributes.resourceType === 'gateway');
    expect(rows.map((r) => [r.attributes.resourceId, r.attributes.costCents, r.attributes.calls]).sort()).toEqual([...perModel.entries()].map(([m, v]) => [m, Math.ceil(v.micros / 10_000), v.calls]).sort());
    expect(usage.meta.totalCostCents).toBeGreaterThanOrEqual(rows.reduce((n, r) => n + r.attributes.costCents, 0));
    // Nothing is invoiced yet: the overview's upcoming charges are this month's usage, gateway spend included.
    const overview = await srv.as(liveCloudKey).get('/v1/billing/overview');
    expect(overview.body.data.attributes.upcomingChargesCents).toBe(usage.meta.totalCostCents);
    expect(overview.body.data.attributes.upcomingChargesCents).toBeGreaterThan(0);
    // The bootstrap credential's test-mode scope saw none of it.
    const testRows = ((await srv.as(srv.bootstrap.apiKey).get('/v1/billing/usage')).body.data as { attributes: { resourceType: string } }[]).filter((r) => r.attributes.resourceType === 'gateway');
    expect(testRows).toEqual([]);
  });

  it('ends a responses stream broken mid-answer with `error`, then `response.failed`, never `response.completed`', async () => {
    const res = await insecureFetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-simulator-fault': '503@2', 'x-simulator-tokens': '6' },
      body: JSON.stringify({ model: 'sim-mini', input: 'break me', stream: true }),
    });
    expect(res.status).toBe(200);
    const events = [...(await res.text()).matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events.filter((e) => e === 'response.output_text.delta')).toHaveLength(2);
    expect(events.slice(-2)).toEqual(['error', 'response.failed']);
    expect(events).not.toContain('response.completed');
  });
});
