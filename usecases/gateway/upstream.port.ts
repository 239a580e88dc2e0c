/** A tool call of an assistant turn: `arguments` is the JSON text the model wrote (as OpenAI carries it). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A message as every upstream takes it (the wire formats are the transport's and the adapters'): the
 * text of each turn, an assistant's tool calls, a tool's result (`role: 'tool'`, naming its call).
 */
export interface UpstreamMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
}

/** A function the model may call: its JSON schema as the client sent it. */
export interface UpstreamTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface UpstreamRequest {
  /** The upstream's own model name. */
  model: string;
  messages: UpstreamMessage[];
  maxTokens: number;
  tools?: UpstreamTool[];
  toolChoice?: ToolChoice;
  /** Test hints a simulator honours (fault injection); real upstreams ignore them. */
  hints: Readonly<Record<string, string>>;
  /** Which attempt of the call this is (1-based): the simulator's faults are chosen per attempt. */
  attempt: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** What an upstream streams: text, tool calls (opened by index, their arguments in deltas), then the end with its counts. */
export type UpstreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; index: number; id: string; name: string }
  | { type: 'tool_args'; index: number; delta: string }
  | { type: 'done'; finishReason: FinishReason; inputTokens: number; outputTokens: number };

/** An upstream failed: a status (5xx, 429) or a timeout. Before the first content byte the gateway fails over. */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'status' | 'timeout',
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }

  /** 5xx, 429 and timeouts are the upstream's trouble: the next step of the waterfall is tried. Other statuses are the request's. */
  get failsOver(): boolean {
    return this.kind === 'timeout' || this.status === 429 || this.status >= 500;
  }
}

/** The port every upstream implements: the simulator, OpenAI- and Anthropic-compatible HTTP upstreams. */
export interface Upstream {
  readonly name: string;
  generate(request: UpstreamRequest, signal: AbortSignal): AsyncIterable<UpstreamEvent>;
}

/** The estimate of input tokens used where an upstream did not say (an attempt cut short): 4 characters a token. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** Every character a call sends upstream: the reservation's worst case counts its bytes. */
export const inputTextOf = (messages: readonly UpstreamMessage[], tools: readonly UpstreamTool[] = []): string =>
  [...messages.map((m) => m.content + (m.toolCalls ?? []).map((c) => c.name + c.arguments).join('')), ...tools.map((t) => JSON.stringify(t))].join('\n');
