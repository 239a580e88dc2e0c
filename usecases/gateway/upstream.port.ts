/** A message as every upstream takes it: the text of each turn (the wire formats are the transport's). */
export interface UpstreamMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface UpstreamRequest {
  /** The upstream's own model name. */
  model: string;
  messages: UpstreamMessage[];
  maxTokens: number;
  /** Test hints a simulator honours (fault injection); real upstreams ignore them. */
  hints: Readonly<Record<string, string>>;
  /** Which attempt of the call this is (1-based): the simulator's faults are chosen per attempt. */
  attempt: number;
}

export type UpstreamEvent =
  | { type: 'text'; text: string }
  | { type: 'done'; finishReason: 'stop' | 'length'; inputTokens: number; outputTokens: number };

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
}

/** The port every upstream implements: the simulator, OpenAI- and Anthropic-compatible HTTP upstreams. */
export interface Upstream {
  readonly name: string;
  generate(request: UpstreamRequest, signal: AbortSignal): AsyncIterable<UpstreamEvent>;
}

/** The estimate of input tokens used where an upstream did not say (an attempt cut short): 4 characters a token. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
