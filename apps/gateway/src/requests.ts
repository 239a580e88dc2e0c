/**
 * The inbound wire shapes (OpenAI chat completions and responses, Anthropic messages) onto the
 * upstream port's one request: turns, tool calls and tool results, tools and the tool choice.
 */
import { z } from 'zod';
import type { ToolCall, ToolChoice, UpstreamMessage, UpstreamTool } from '../../../usecases/gateway/upstream.port';

const part = z.object({ type: z.string(), text: z.string().optional() }).passthrough();
const textContent = z.union([z.string(), z.array(part)]);
type TextContent = z.infer<typeof textContent>;
/** The text of a content (string or parts); parts that carry no text (images, …) are not forwarded. */
const flatten = (c: TextContent | null | undefined): string => (c == null ? '' : typeof c === 'string' ? c : c.map((p) => (typeof p.text === 'string' ? p.text : '')).join(''));
const tokensLimit = z.number().int().min(1).max(1_000_000).optional();
const schema = z.record(z.string(), z.unknown());
const roleOf = (r: string): 'system' | 'user' | 'assistant' => (r === 'system' || r === 'developer' ? 'system' : r === 'assistant' ? 'assistant' : 'user');

export interface ParsedCall {
  model: string;
  messages: UpstreamMessage[];
  tools?: UpstreamTool[];
  toolChoice?: ToolChoice;
  maxTokens: number | null | undefined;
  stream: boolean;
}

// ---------------------------------------------------------------- OpenAI chat completions
const chatToolCall = z.object({ id: z.string().max(200), type: z.literal('function').optional(), function: z.object({ name: z.string().max(200), arguments: z.string() }) }).passthrough();
const openaiChoice = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }).passthrough()]);
export const chatBody = z
  .object({
    model: z.string().min(1),
    messages: z
      .array(z.object({ role: z.string(), content: textContent.nullable().optional(), tool_calls: z.array(chatToolCall).optional(), tool_call_id: z.string().optional() }).passthrough())
      .min(1),
    max_tokens: tokensLimit.nullable(),
    max_completion_tokens: tokensLimit.nullable(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tools: z.array(z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1).max(200), description: z.string().optional(), parameters: schema.optional() }).passthrough() }).passthrough()).max(128).optional(),
    tool_choice: openaiChoice.optional(),
  })
  .passthrough();

const choiceOf = (c: z.infer<typeof openaiChoice> | undefined): ToolChoice | undefined => (c === undefined ? undefined : typeof c === 'string' ? c : { name: c.function.name });

export function fromChat(body: z.infer<typeof chatBody>): ParsedCall {
  const messages = body.messages.map((m): UpstreamMessage => {
    if (m.role === 'tool') return { role: 'tool', content: flatten(m.content), toolCallId: m.tool_call_id ?? '' };
    const role = roleOf(m.role);
    const toolCalls: ToolCall[] | undefined = role === 'assistant' && m.tool_calls?.length ? m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) : undefined;
    return { role, content: flatten(m.content), ...(toolCalls ? { toolCalls } : {}) };
  });
  return {
    model: body.model,
    messages,
    tools: body.tools?.map((t) => ({ name: t.function.name, ...(t.function.description ? { description: t.function.description } : {}), parameters: t.function.parameters ?? { type: 'object', properties: {} } })),
    toolChoice: choiceOf(body.tool_choice),
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    stream: !!body.stream,
  };
}

// ---------------------------------------------------------------- OpenAI responses
const inputItem = z
  .object({
    type: z.string().optional(),
    role: z.string().optional(),
    content: textContent.optional(),
    call_id: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
    arguments: z.string().optional(),
    output: z.union([z.string(), z.array(part)]).optional(),
  })
  .passthrough();
const responsesChoice = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), name: z.string() }).passthrough()]);
export const responsesBody = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(inputItem)]),
    instructions: z.string().nullable().optional(),
    max_output_tokens: tokensLimit.nullable(),
    stream: z.boolean().nullable().optional(),
    tools: z.array(z.object({ type: z.literal('function'), name: z.string().min(1).max(200), description: z.string().nullable().optional(), parameters: schema.nullable().optional() }).passthrough()).max(128).optional(),
    tool_choice: responsesChoice.optional(),
  })
  .passthrough();

export function fromResponses(body: z.infer<typeof responsesBody>): ParsedCall {
  const input: UpstreamMessage[] = [];
  if (typeof body.input === 'string') input.push({ role: 'user', content: body.input });
  else
    for (const item of body.input) {
      if (item.type === 'function_call') {
        // Consecutive calls are one assistant turn, as chat completions carries them.
        const call = { id: item.call_id ?? '', name: item.name ?? '', arguments: item.arguments ?? '' };
        const last = input[input.length - 1];
        if (last?.role === 'assistant' && last.toolCalls) last.toolCalls.push(call);
        else input.push({ role: 'assistant', content: '', toolCalls: [call] });
      } else if (item.type === 'function_call_output') input.push({ role: 'tool', content: typeof item.output === 'string' ? item.output : flatten(item.output), toolCallId: item.call_id ?? '' });
      else input.push({ role: roleOf(item.role ?? 'user'), content: flatten(item.content) });
    }
  return {
    model: body.model,
    messages: body.instructions ? [{ role: 'system', content: body.instructions }, ...input] : input,
    tools: body.tools?.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters ?? { type: 'object', properties: {} } })),
    toolChoice: body.tool_choice === undefined ? undefined : typeof body.tool_choice === 'string' ? body.tool_choice : { name: body.tool_choice.name },
    maxTokens: body.max_output_tokens,
    stream: !!body.stream,
  };
}

// ---------------------------------------------------------------- Anthropic messages
const anthropicChoice = z.object({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().optional() }).passthrough();
export const messagesBody = z
  .object({
    model: z.string().min(1),
    messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: textContent }).passthrough()).min(1),
    system: textContent.optional(),
    max_tokens: z.number().int().min(1).max(1_000_000),
    stream: z.boolean().optional(),
    tools: z.array(z.object({ name: z.string().min(1).max(200), description: z.string().optional(), input_schema: schema }).passthrough()).max(128).optional(),
    tool_choice: anthropicChoice.optional(),
  })
  .passthrough();

type Block = z.infer<typeof part> & { id?: unknown; name?: unknown; input?: unknown; tool_use_id?: unknown; content?: unknown };

export function fromMessages(body: z.infer<typeof messagesBody>): ParsedCall {
  const messages: UpstreamMessage[] = body.system ? [{ role: 'system', content: flatten(body.system) }] : [];
  for (const m of body.messages) {
    if (typeof m.content === 'string') {
      messages.push({ role: m.role, content: m.content });
      continue;
    }
    const blocks = m.content as Block[];
    // Tool results come first in a user turn (Anthropic's rule); each is a tool message of its own.
    for (const b of blocks.filter((x) => x.type === 'tool_result')) {
      const c = b.content;
      messages.push({ role: 'tool', toolCallId: String(b.tool_use_id ?? ''), content: typeof c === 'string' ? c : Array.isArray(c) ? flatten(c as Block[]) : '' });
    }
    const text = flatten(blocks.filter((x) => x.type === 'text'));
    const toolCalls = blocks.filter((x) => x.type === 'tool_use').map((b) => ({ id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: JSON.stringify(b.input ?? {}) }));
    if (text || toolCalls.length || !blocks.some((x) => x.type === 'tool_result')) messages.push({ role: m.role, content: text, ...(m.role === 'assistant' && toolCalls.length ? { toolCalls } : {}) });
  }
  const tc = body.tool_choice;
  return {
    model: body.model,
    messages,
    tools: body.tools?.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.input_schema })),
    toolChoice: tc === undefined ? undefined : tc.type === 'any' ? 'required' : tc.type === 'tool' ? { name: tc.name ?? '' } : tc.type,
    maxTokens: body.max_tokens,
    stream: !!body.stream,
  };
}
