import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam as AnthropicMessage, RawMessageStreamEvent, Tool as AnthropicTool, ToolChoice as AnthropicToolChoice } from '@anthropic-ai/sdk/resources/messages/messages';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions/completions';
import type { ConnectionKind } from '../../../../libs/domain/gateway/events';
import { UpstreamError, type FinishReason, type ToolChoice, type Upstream, type UpstreamEvent, type UpstreamMessage, type UpstreamRequest, type UpstreamTool } from '../../../../usecases/gateway/upstream.port';

/**
 * The HTTP upstreams (DECISIONS 19): an OpenAI-compatible one (chat completions) and an
 * Anthropic-compatible one (messages). Each speaks its upstream through the vendor's official SDK
 * (its SSE parsing, its error classes, its wire types) with retries off: the waterfall decides what
 * is tried again. Upstream error bodies are not passed on (an upstream's 401 can echo part of its key).
 */
export interface HttpUpstream extends Upstream {
  /** One cheap call to the upstream's models route: how many models it lists. */
  verify(signal?: AbortSignal): Promise<number>;
}

/** Any SDK failure as the port's error: a status, or a timeout; never the upstream's own text. */
function upstreamError(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  for (const sdk of [OpenAI, Anthropic] as const) {
    if (err instanceof sdk.APIConnectionTimeoutError || err instanceof sdk.APIUserAbortError) return new UpstreamError('timeout', 504, 'upstream timed out');
    if (err instanceof sdk.APIConnectionError) return new UpstreamError('status', 502, 'upstream unreachable');
    if (err instanceof sdk.APIError) return new UpstreamError('status', typeof err.status === 'number' ? err.status : 502, `upstream answered ${err.status ?? 'an error frame'}`);
  }
  return new UpstreamError('status', 502, 'upstream answered something unreadable');
}

const LONG = 10 * 60_000; // the gateway's own silence timeout cuts an attempt first

// ---------------------------------------------------------------- OpenAI-compatible
function toOpenAIMessages(messages: readonly UpstreamMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: m.content || (m.toolCalls?.length ? null : ''),
          ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
        };
    }
  });
}
const toOpenAITools = (tools: readonly UpstreamTool[]): ChatCompletionTool[] => tools.map((t) => ({ type: 'function', function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters } }));
const toOpenAIChoice = (c: ToolChoice): ChatCompletionToolChoiceOption => (typeof c === 'string' ? c : { type: 'function', function: { name: c.name } });
const openaiFinish = (r: string | null | undefined): FinishReason => (r === 'length' ? 'length' : r === 'tool_calls' || r === 'function_call' ? 'tool_calls' : 'stop');

export class OpenAICompatibleUpstream implements HttpUpstream {
  private readonly client: OpenAI;

  constructor(
    readonly name: string,
    baseUrl: string,
    secret: string,
  ) {
    this.client = new OpenAI({ apiKey: secret, baseURL: baseUrl, maxRetries: 0, timeout: LONG });
  }

  async verify(signal?: AbortSignal): Promise<number> {
    try {
      return (await this.client.models.list({ signal })).data.length;
    } catch (err) {
      throw upstreamError(err);
    }
  }

  async *generate(request: UpstreamRequest, signal: AbortSignal): AsyncIterable<UpstreamEvent> {
    let stream: AsyncIterable<ChatCompletionChunk>;
    try {
      stream = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: toOpenAIMessages(request.messages),
          max_tokens: request.maxTokens,
          stream: true,
          stream_options: { include_usage: true },
          ...(request.tools?.length ? { tools: toOpenAITools(request.tools) } : {}),
          ...(request.tools?.length && request.toolChoice ? { tool_choice: toOpenAIChoice(request.toolChoice) } : {}),
        },
        { signal },
      );
    } catch (err) {
      throw upstreamError(err);
    }
    let finish: FinishReason | null = null;
    let usage: { prompt_tokens: number; completion_tokens: number } | null = null;
    // The upstream's tool-call indexes as it numbered them, opened once each.
    const opened = new Set<number>();
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (choice.delta?.content) yield { type: 'text', text: choice.delta.content };
        for (const tc of choice.delta?.tool_calls ?? []) {
          if (!opened.has(tc.index)) {
            opened.add(tc.index);
            yield { type: 'tool_call', index: tc.index, id: tc.id ?? `call_${tc.index}`, name: tc.function?.name ?? '' };
          }
          if (tc.function?.arguments) yield { type: 'tool_args', index: tc.index, delta: tc.function.arguments };
        }
        if (choice.finish_reason) finish = openaiFinish(choice.finish_reason);
      }
    } catch (err) {
      throw upstreamError(err);
    }
    if (!finish) throw new UpstreamError('status', 502, 'upstream stream ended without a finish reason');
    yield { type: 'done', finishReason: finish, inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
  }
}

// ---------------------------------------------------------------- Anthropic-compatible
/** Anthropic's turns: system apart, tool results as `tool_result` blocks of a user turn, consecutive same-role turns merged. */
function toAnthropic(messages: readonly UpstreamMessage[]): { system: string | undefined; messages: AnthropicMessage[] } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const out: { role: 'user' | 'assistant'; content: Exclude<AnthropicMessage['content'], string> }[] = [];
  const push = (role: 'user' | 'assistant', blocks: (typeof out)[number]['content']) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content = [...last.content, ...blocks];
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId ?? '', content: m.content }]);
    else if (m.role === 'user') push('user', m.content ? [{ type: 'text', text: m.content }] : []);
    else
      push('assistant', [
        ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
        ...(m.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: parseArgs(c.arguments) })),
      ]);
  }
  return { system: system.length ? system.join('\n\n') : undefined, messages: out as AnthropicMessage[] };
}
function parseArgs(args: string): Record<string, unknown> {
  try {
    const v = args ? JSON.parse(args) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
const toAnthropicTools = (tools: readonly UpstreamTool[]): AnthropicTool[] => tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: { type: 'object', ...t.parameters } as AnthropicTool['input_schema'] }));
const toAnthropicChoice = (c: ToolChoice): AnthropicToolChoice => (c === 'auto' ? { type: 'auto' } : c === 'none' ? { type: 'none' } : c === 'required' ? { type: 'any' } : { type: 'tool', name: c.name });
const anthropicFinish = (r: string | null | undefined): FinishReason => (r === 'max_tokens' ? 'length' : r === 'tool_use' ? 'tool_calls' : 'stop');

export class AnthropicCompatibleUpstream implements HttpUpstream {
  private readonly client: Anthropic;

  constructor(
    readonly name: string,
    baseUrl: string,
    secret: string,
  ) {
    this.client = new Anthropic({ apiKey: secret, baseURL: baseUrl, maxRetries: 0, timeout: LONG });
  }

  async verify(signal?: AbortSignal): Promise<number> {
    try {
      return (await this.client.models.list({}, { signal })).data.length;
    } catch (err) {
      throw upstreamError(err);
    }
  }

  async *generate(request: UpstreamRequest, signal: AbortSignal): AsyncIterable<UpstreamEvent> {
    const { system, messages } = toAnthropic(request.messages);
    let stream: AsyncIterable<RawMessageStreamEvent>;
    try {
      stream = await this.client.messages.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          messages,
          stream: true,
          ...(system ? { system } : {}),
          ...(request.tools?.length ? { tools: toAnthropicTools(request.tools) } : {}),
          ...(request.tools?.length && request.toolChoice ? { tool_choice: toAnthropicChoice(request.toolChoice) } : {}),
        },
        { signal },
      );
    } catch (err) {
      throw upstreamError(err);
    }
    let inputTokens = 0;
    let outputTokens = 0;
    let finish: FinishReason | null = null;
    let stopped = false;
    // Content block index → the tool call's index among this answer's tool calls.
    const tools = new Map<number, number>();
    try {
      for await (const e of stream) {
        switch (e.type) {
          case 'message_start':
            inputTokens = e.message.usage.input_tokens;
            outputTokens = e.message.usage.output_tokens;
            break;
          case 'content_block_start':
            if (e.content_block.type === 'tool_use') {
              tools.set(e.index, tools.size);
              yield { type: 'tool_call', index: tools.size - 1, id: e.content_block.id, name: e.content_block.name };
            } else if (e.content_block.type === 'text' && e.content_block.text) yield { type: 'text', text: e.content_block.text };
            break;
          case 'content_block_delta':
            if (e.delta.type === 'text_delta') yield { type: 'text', text: e.delta.text };
            else if (e.delta.type === 'input_json_delta' && tools.has(e.index) && e.delta.partial_json) yield { type: 'tool_args', index: tools.get(e.index)!, delta: e.delta.partial_json };
            break;
          case 'message_delta':
            // Cumulative counts: the last one is the whole answer's.
            outputTokens = e.usage.output_tokens;
            if (typeof e.usage.input_tokens === 'number') inputTokens = e.usage.input_tokens;
            finish = anthropicFinish(e.delta.stop_reason);
            break;
          case 'message_stop':
            stopped = true;
            break;
          default:
            break;
        }
      }
    } catch (err) {
      throw upstreamError(err);
    }
    if (!stopped) throw new UpstreamError('status', 502, 'upstream stream ended without message_stop');
    yield { type: 'done', finishReason: finish ?? 'stop', inputTokens, outputTokens };
  }
}

export function httpUpstream(kind: ConnectionKind, name: string, baseUrl: string, secret: string): HttpUpstream {
  return kind === 'openai' ? new OpenAICompatibleUpstream(name, baseUrl, secret) : new AnthropicCompatibleUpstream(name, baseUrl, secret);
}
