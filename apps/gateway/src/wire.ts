/**
 * The wire shapes of the answers, as the official SDKs parse them (DECISIONS 19): OpenAI chat
 * completions (no `event:` lines, `data: [DONE]`, the usage chunk), OpenAI responses (`event:` +
 * `sequence_number`) and Anthropic messages (an `event:` line on every frame, cumulative usage).
 */
import type { InferenceOutcome } from '../../../usecases/gateway/run-inference';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** What a streamed answer writes at each step; each returns whole SSE frames. */
export interface StreamRenderer {
  /** Lifecycle frames, held back until the first content arrives (failover stays possible until then). */
  start(inputTokens: number): string;
  text(delta: string): string;
  end(outcome: InferenceOutcome): string;
  /** The frame the SDK raises as an exception when the upstream fails mid-answer. */
  error(message: string): string;
}

const data = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
const frame = (event: string, body: unknown) => `event: ${event}\ndata: ${JSON.stringify(body)}\n\n`;

// ---------------------------------------------------------------- OpenAI chat completions
const finishOf = (r: InferenceOutcome['finishReason']) => (r === 'length' ? 'length' : 'stop');

export function chatCompletion(id: string, model: string, created: number, o: InferenceOutcome) {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: o.text, refusal: null }, logprobs: null, finish_reason: finishOf(o.finishReason) }],
    usage: { prompt_tokens: o.inputTokens, completion_tokens: o.outputTokens, total_tokens: o.inputTokens + o.outputTokens },
    system_fingerprint: null,
  };
}

export function chatStream(id: string, model: string, created: number, includeUsage: boolean): StreamRenderer {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    data({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices, ...(includeUsage ? { usage: null } : {}), ...extra });
  return {
    start: () => chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]),
    text: (delta) => chunk([{ index: 0, delta: { content: delta }, logprobs: null, finish_reason: null }]),
    end: (o) =>
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishOf(o.finishReason) }]) +
      (includeUsage ? chunk([], { usage: { prompt_tokens: o.inputTokens, completion_tokens: o.outputTokens, total_tokens: o.inputTokens + o.outputTokens } }) : '') +
      'data: [DONE]\n\n',
    error: (message) => data({ error: { message, type: 'server_error', param: null, code: 'upstream_error' } }),
  };
}

// ---------------------------------------------------------------- OpenAI responses
function responseObject(id: string, msgId: string, model: string, created: number, status: 'in_progress' | 'completed' | 'incomplete', o?: InferenceOutcome) {
  const done = status !== 'in_progress' && o;
  return {
    id,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: done ? [{ type: 'message', id: msgId, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: o.text, annotations: [] }] }] : [],
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage: done
      ? { input_tokens: o.inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: o.outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: o.inputTokens + o.outputTokens }
      : null,
    metadata: {},
  };
}

export const response = (id: string, msgId: string, model: string, created: number, o: InferenceOutcome) => responseObject(id, msgId, model, created, o.finishReason === 'length' ? 'incomplete' : 'completed', o);

export function responseStream(id: string, msgId: string, model: string, created: number): StreamRenderer {
  let seq = 0;
  let text = '';
  const ev = (type: string, body: Record<string, unknown>) => frame(type, { type, sequence_number: seq++, ...body });
  const part = (t: string) => ({ type: 'output_text', text: t, annotations: [] });
  return {
    start: () =>
      ev('response.created', { response: responseObject(id, msgId, model, created, 'in_progress') }) +
      ev('response.in_progress', { response: responseObject(id, msgId, model, created, 'in_progress') }) +
      ev('response.output_item.added', { output_index: 0, item: { type: 'message', id: msgId, status: 'in_progress', role: 'assistant', content: [] } }) +
      ev('response.content_part.added', { item_id: msgId, output_index: 0, content_index: 0, part: part('') }),
    text: (delta) => {
      text += delta;
      return ev('response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta, logprobs: [] });
    },
    end: (o) =>
      ev('response.output_text.done', { item_id: msgId, output_index: 0, content_index: 0, text, logprobs: [] }) +
      ev('response.content_part.done', { item_id: msgId, output_index: 0, content_index: 0, part: part(text) }) +
      ev('response.output_item.done', { output_index: 0, item: { type: 'message', id: msgId, status: 'completed', role: 'assistant', content: [part(text)] } }) +
      ev(o.finishReason === 'length' ? 'response.incomplete' : 'response.completed', { response: response(id, msgId, model, created, o) }),
    error: (message) => ev('error', { code: 'server_error', message, param: null }),
  };
}

// ---------------------------------------------------------------- Anthropic messages
const stopOf = (r: InferenceOutcome['finishReason']) => (r === 'length' ? 'max_tokens' : 'end_turn');

export function message(id: string, model: string, o: InferenceOutcome) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: o.text }],
    stop_reason: stopOf(o.finishReason),
    stop_sequence: null,
    usage: { input_tokens: o.inputTokens, output_tokens: o.outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

export function messageStream(id: string, model: string): StreamRenderer {
  let input = 0;
  return {
    start: (inputTokens) => {
      input = inputTokens;
      return (
        frame('message_start', {
          type: 'message_start',
          message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
        }) +
        frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        frame('ping', { type: 'ping' })
      );
    },
    text: (delta) => frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } }),
    end: (o) =>
      frame('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      // message_delta.usage is cumulative: the whole call's counts so far, not the increment.
      frame('message_delta', { type: 'message_delta', delta: { stop_reason: stopOf(o.finishReason), stop_sequence: null }, usage: { input_tokens: o.inputTokens || input, output_tokens: o.outputTokens } }) +
      frame('message_stop', { type: 'message_stop' }),
    error: (message) => frame('error', { type: 'error', error: { type: 'api_error', message } }),
  };
}
