/**
 * The wire shapes of the answers, as the official SDKs parse them (DECISIONS 19): OpenAI chat
 * completions (no `event:` lines, `data: [DONE]`, the usage chunk), OpenAI responses (`event:` +
 * `sequence_number`) and Anthropic messages (an `event:` line on every frame, cumulative usage);
 * tool calls with their arguments streamed as deltas on each.
 */
import type { InferenceOutcome } from '../../../usecases/gateway/run-inference';
import type { FinishReason, ToolCall } from '../../../usecases/gateway/upstream.port';

/** What a streamed answer writes at each step; each returns whole SSE frames. */
export interface StreamRenderer {
  /** Lifecycle frames, held back until the first content arrives (failover stays possible until then). */
  start(inputTokens: number): string;
  text(delta: string): string;
  toolCall(index: number, id: string, name: string): string;
  toolArgs(index: number, delta: string): string;
  end(outcome: InferenceOutcome): string;
  /** The frame the SDK raises as an exception when the upstream fails mid-answer. */
  error(message: string): string;
}

const data = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
const frame = (event: string, body: unknown) => `event: ${event}\ndata: ${JSON.stringify(body)}\n\n`;
/** A tool's arguments as an object (Anthropic's `input`): the model's JSON text, `{}` when it wrote none that parses. */
const inputOf = (args: string): unknown => {
  try {
    return args ? JSON.parse(args) : {};
  } catch {
    return {};
  }
};

// ---------------------------------------------------------------- OpenAI chat completions
const finishOf = (r: FinishReason) => r;
const chatToolCall = (c: ToolCall) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } });

export function chatCompletion(id: string, model: string, created: number, o: InferenceOutcome) {
  const tools = o.toolCalls.length ? { tool_calls: o.toolCalls.map(chatToolCall) } : {};
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: o.text || (o.toolCalls.length ? null : ''), refusal: null, ...tools }, logprobs: null, finish_reason: finishOf(o.finishReason) }],
    usage: { prompt_tokens: o.inputTokens, completion_tokens: o.outputTokens, total_tokens: o.inputTokens + o.outputTokens },
    system_fingerprint: null,
  };
}

export function chatStream(id: string, model: string, created: number, includeUsage: boolean): StreamRenderer {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    data({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices, ...(includeUsage ? { usage: null } : {}), ...extra });
  const delta = (d: Record<string, unknown>) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: null }]);
  return {
    start: () => delta({ role: 'assistant', content: '', refusal: null }),
    text: (t) => delta({ content: t }),
    toolCall: (index, callId, name) => delta({ tool_calls: [{ index, id: callId, type: 'function', function: { name, arguments: '' } }] }),
    toolArgs: (index, args) => delta({ tool_calls: [{ index, function: { arguments: args } }] }),
    end: (o) =>
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishOf(o.finishReason) }]) +
      (includeUsage ? chunk([], { usage: { prompt_tokens: o.inputTokens, completion_tokens: o.outputTokens, total_tokens: o.inputTokens + o.outputTokens } }) : '') +
      'data: [DONE]\n\n',
    error: (message) => data({ error: { message, type: 'server_error', param: null, code: 'upstream_error' } }),
  };
}

// ---------------------------------------------------------------- OpenAI responses
type OutputItem = Record<string, unknown> & { type: string; id: string };
const part = (t: string) => ({ type: 'output_text', text: t, annotations: [] });
const messageItem = (msgId: string, text: string, status = 'completed'): OutputItem => ({ type: 'message', id: msgId, status, role: 'assistant', content: status === 'completed' ? [part(text)] : [] });
const functionItem = (fcId: string, c: ToolCall, status = 'completed'): OutputItem => ({ type: 'function_call', id: fcId, call_id: c.id, name: c.name, arguments: c.arguments, status });
const fcIdOf = (msgId: string, index: number) => `fc_${msgId.slice(4)}_${index}`;

function responseObject(id: string, model: string, created: number, status: 'in_progress' | 'completed' | 'incomplete' | 'failed', output: OutputItem[], o?: InferenceOutcome, error: { code: string; message: string } | null = null) {
  return {
    id,
    object: 'response',
    created_at: created,
    status,
    error,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage: o
      ? { input_tokens: o.inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: o.outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: o.inputTokens + o.outputTokens }
      : null,
    metadata: {},
  };
}
const statusOf = (o: InferenceOutcome) => (o.finishReason === 'length' ? 'incomplete' : 'completed');

export const response = (id: string, msgId: string, model: string, created: number, o: InferenceOutcome) =>
  responseObject(id, model, created, statusOf(o), [...(o.text || !o.toolCalls.length ? [messageItem(msgId, o.text)] : []), ...o.toolCalls.map((c, i) => functionItem(fcIdOf(msgId, i), c))], o);

export function responseStream(id: string, msgId: string, model: string, created: number): StreamRenderer {
  let seq = 0;
  let text = '';
  /** The output items in the order they were opened; `open` is the one still streaming. */
  const items: OutputItem[] = [];
  let open: { kind: 'message' } | { kind: 'tool'; call: ToolCall; fcId: string } | null = null;
  const toolIndex = new Map<number, { call: ToolCall; fcId: string; outputIndex: number }>();
  const ev = (type: string, body: Record<string, unknown>) => frame(type, { type, sequence_number: seq++, ...body });
  const close = (): string => {
    if (!open) return '';
    const outputIndex = items.length;
    let out: string;
    if (open.kind === 'message') {
      out =
        ev('response.output_text.done', { item_id: msgId, output_index: outputIndex, content_index: 0, text, logprobs: [] }) +
        ev('response.content_part.done', { item_id: msgId, output_index: outputIndex, content_index: 0, part: part(text) }) +
        ev('response.output_item.done', { output_index: outputIndex, item: messageItem(msgId, text) });
      items.push(messageItem(msgId, text));
    } else {
      const item = functionItem(open.fcId, open.call);
      out = ev('response.function_call_arguments.done', { item_id: open.fcId, output_index: outputIndex, arguments: open.call.arguments }) + ev('response.output_item.done', { output_index: outputIndex, item });
      items.push(item);
    }
    open = null;
    return out;
  };
  return {
    start: () => ev('response.created', { response: responseObject(id, model, created, 'in_progress', []) }) + ev('response.in_progress', { response: responseObject(id, model, created, 'in_progress', []) }),
    text: (delta) => {
      let out = '';
      if (open?.kind !== 'message') {
        out += close();
        open = { kind: 'message' };
        out +=
          ev('response.output_item.added', { output_index: items.length, item: messageItem(msgId, '', 'in_progress') }) +
          ev('response.content_part.added', { item_id: msgId, output_index: items.length, content_index: 0, part: part('') });
      }
      text += delta;
      return out + ev('response.output_text.delta', { item_id: msgId, output_index: items.length, content_index: 0, delta, logprobs: [] });
    },
    toolCall: (index, callId, name) => {
      const out = close();
      const call = { id: callId, name, arguments: '' };
      const fcId = fcIdOf(msgId, index);
      open = { kind: 'tool', call, fcId };
      toolIndex.set(index, { call, fcId, outputIndex: items.length });
      return out + ev('response.output_item.added', { output_index: items.length, item: functionItem(fcId, call, 'in_progress') });
    },
    toolArgs: (index, delta) => {
      const t = toolIndex.get(index);
      if (!t) return '';
      t.call.arguments += delta;
      return ev('response.function_call_arguments.delta', { item_id: t.fcId, output_index: t.outputIndex, delta });
    },
    end: (o) => {
      const out = close();
      return out + ev(o.finishReason === 'length' ? 'response.incomplete' : 'response.completed', { response: responseObject(id, model, created, statusOf(o), items, o) });
    },
    // The SDK raises the `error` event; `response.failed` then ends the stream with the response as it stood (DECISIONS 19).
    error: (message) => ev('error', { code: 'server_error', message, param: null }) + ev('response.failed', { response: responseObject(id, model, created, 'failed', items, undefined, { code: 'server_error', message }) }),
  };
}

// ---------------------------------------------------------------- Anthropic messages
const stopOf = (r: FinishReason) => (r === 'length' ? 'max_tokens' : r === 'tool_calls' ? 'tool_use' : 'end_turn');

export function message(id: string, model: string, o: InferenceOutcome) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [...(o.text || !o.toolCalls.length ? [{ type: 'text', text: o.text }] : []), ...o.toolCalls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: inputOf(c.arguments) }))],
    stop_reason: stopOf(o.finishReason),
    stop_sequence: null,
    usage: { input_tokens: o.inputTokens, output_tokens: o.outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

export function messageStream(id: string, model: string): StreamRenderer {
  let input = 0;
  let blocks = 0;
  let open: 'text' | 'tool' | null = null;
  const blockOf = new Map<number, number>();
  const close = () => {
    if (!open) return '';
    open = null;
    return frame('content_block_stop', { type: 'content_block_stop', index: blocks - 1 });
  };
  const openBlock = (kind: 'text' | 'tool', block: unknown) => {
    const out = close() + frame('content_block_start', { type: 'content_block_start', index: blocks, content_block: block });
    blocks++;
    open = kind;
    return out;
  };
  return {
    start: (inputTokens) => {
      input = inputTokens;
      return (
        frame('message_start', {
          type: 'message_start',
          message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
        }) + frame('ping', { type: 'ping' })
      );
    },
    text: (delta) => (open === 'text' ? '' : openBlock('text', { type: 'text', text: '' })) + frame('content_block_delta', { type: 'content_block_delta', index: blocks - 1, delta: { type: 'text_delta', text: delta } }),
    toolCall: (index, callId, name) => {
      const out = openBlock('tool', { type: 'tool_use', id: callId, name, input: {} });
      blockOf.set(index, blocks - 1);
      return out;
    },
    toolArgs: (index, delta) => {
      const block = blockOf.get(index);
      return block === undefined ? '' : frame('content_block_delta', { type: 'content_block_delta', index: block, delta: { type: 'input_json_delta', partial_json: delta } });
    },
    end: (o) =>
      (blocks === 0 ? openBlock('text', { type: 'text', text: '' }) : '') +
      close() +
      // message_delta.usage is cumulative: the whole call's counts so far, not the increment.
      frame('message_delta', { type: 'message_delta', delta: { stop_reason: stopOf(o.finishReason), stop_sequence: null }, usage: { input_tokens: o.inputTokens || input, output_tokens: o.outputTokens } }) +
      frame('message_stop', { type: 'message_stop' }),
    error: (message) => frame('error', { type: 'error', error: { type: 'api_error', message } }),
  };
}
