import { gatewayBudgetStream, type KeyLimits } from '../../libs/domain/gateway/events';
import { costMicros, dayOf, monthOf, worstCaseMicros, type ModelPrice } from '../../libs/domain/gateway/pricing';
import type { Mode } from '../../libs/domain/shared/scope';
import type { CommandContext } from '../../libs/eventstore/src/handle-command';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { BudgetLedger } from './budget-ledger';
import { estimateTokens, inputTextOf, UpstreamError, type FinishReason, type ToolCall, type ToolChoice, type Upstream, type UpstreamEvent, type UpstreamMessage, type UpstreamTool } from './upstream.port';
import { recordUsage } from './usage';

export interface InferenceCall {
  requestId: string;
  key: { id: string; scope: string; mode: Mode; limits: KeyLimits };
  model: { id: string; price: ModelPrice };
  /** The waterfall: tried in order while an attempt fails before its first content byte; each step with the upstream's own model name. */
  upstreams: readonly { upstream: Upstream; model: string }[];
  messages: UpstreamMessage[];
  tools?: UpstreamTool[];
  toolChoice?: ToolChoice;
  maxTokens: number;
  hints: Readonly<Record<string, string>>;
}

/**
 * Where the answer goes: the transport renders each delta in its wire format. Until the first
 * content byte reaches the client (a streamed answer's first delta; a whole answer's end) another
 * upstream may take over.
 */
export interface InferenceSink {
  /** Streamed: each delta reaches the client as it comes (no failover after the first); else the answer is sent whole at the end. */
  readonly streaming: boolean;
  /** The client's connection: aborted when it goes away. */
  readonly signal: AbortSignal;
  /** The first content of the attempt that will answer (lifecycle frames were held back until now). */
  start(upstream: string): void | Promise<void>;
  text(delta: string): void | Promise<void>;
  toolCall(index: number, id: string, name: string): void | Promise<void>;
  toolArgs(index: number, delta: string): void | Promise<void>;
}

export interface InferenceOutcome {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  inputTokens: number;
  outputTokens: number;
  upstream: string;
  attempts: number;
}

/** The answer had begun when its upstream failed: the transport ends it with the vendor's error frame. */
export class StreamBrokenError extends Error {
  constructor(readonly upstreamError: UpstreamError) {
    super(`The upstream failed mid-answer: ${upstreamError.message}`);
    this.name = 'StreamBrokenError';
  }
}

/** The client went away; what was streamed is billed. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client disconnected');
    this.name = 'ClientGoneError';
  }
}

export interface InferenceDeps {
  ports: PortsOf<'events' | 'now' | 'clock'>;
  ledger: BudgetLedger;
  /** How long an upstream may be silent (before its first byte or between chunks) before the attempt fails. */
  upstreamTimeoutMs: number;
  /** Called once the worst case is reserved, before the first upstream is asked (the gateway's phase timings). */
  reserved?: () => void;
}

/** Reads the next event of an upstream, failing the attempt when it is silent for `ms`. */
function nextWithin(it: AsyncIterator<UpstreamEvent>, ms: number, abort: AbortController): Promise<IteratorResult<UpstreamEvent>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      abort.abort();
      reject(new UpstreamError('timeout', 504, `upstream silent for ${ms} ms`));
    }, ms);
    it.next().then(
      (r) => {
        clearTimeout(timer);
        resolve(r);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * One inference call (DECISIONS 19): reserve the worst case against the key's monthly cap (a key
 * without a cap records its reservation with the settlement), try the
 * waterfall's upstreams in order while an attempt fails before its first content byte, record one
 * usage event per attempt that produced tokens (also when the client leaves mid-answer), and settle
 * the reservation to what was recorded.
 */
export async function runInference(deps: InferenceDeps, call: InferenceCall, sink: InferenceSink): Promise<InferenceOutcome> {
  const { ports, ledger } = deps;
  const now = ports.now();
  const month = monthOf(now);
  const ctx: CommandContext = { metadata: { actor: `gwkey:${call.key.id}`, projectId: call.key.scope, requestId: call.requestId, mode: call.key.mode } };
  const inputText = inputTextOf(call.messages, call.tools);
  const reservationId = call.requestId;
  const budget = gatewayBudgetStream(call.key.id, month);
  const base = { keyId: call.key.id, projectId: call.key.scope, month, reservationId };
  const reserve = { type: 'ReserveSpend' as const, ...base, amountMicros: worstCaseMicros(call.model.price, Buffer.byteLength(inputText, 'utf8'), call.maxTokens), capMicros: call.key.limits.monthlySpendCapMicros, now };
  // A cap is enforced before the call goes upstream. Without a cap nothing can refuse the reservation:
  // it is appended with its settlement when the call ends (one append, off the path to the first token),
  // so that the month's spend is whole should a cap be set later.
  const capped = reserve.capMicros !== null;
  if (capped) await ledger.decide(budget, reserve, ctx);
  deps.reserved?.();
  let spent = 0;
  try {
    let lastError: UpstreamError | undefined;
    for (let i = 0; i < call.upstreams.length; i++) {
      const { upstream, model: upstreamModel } = call.upstreams[i];
      const attempt = i + 1;
      const started = ports.clock.now();
      const abort = new AbortController();
      const onGone = () => abort.abort();
      sink.signal.addEventListener('abort', onGone);
      let text = '';
      const toolCalls: ToolCall[] = [];
      let chunks = 0;
      let began = false;
      let done: Extract<UpstreamEvent, { type: 'done' }> | undefined;
      const record = async (outcome: 'completed' | 'failed' | 'disconnected') => {
        const inputTokens = done?.inputTokens ?? estimateTokens(inputText);
        const outputTokens = done?.outputTokens ?? chunks;
        if (outputTokens === 0 && !done) return;
        const cost = costMicros(call.model.price, inputTokens, outputTokens);
        const at = ports.now();
        if (
          await recordUsage(
            ports.events,
            { requestId: call.requestId, attempt, keyId: call.key.id, projectId: call.key.scope, mode: call.key.mode, model: call.model.id, upstream: upstream.name, inputTokens, outputTokens, costMicros: cost, latencyMs: ports.clock.now() - started, outcome, day: dayOf(at), recordedAt: at },
            ctx,
          )
        )
          spent += cost;
      };
      try {
        if (sink.signal.aborted) throw new ClientGoneError();
        const it = upstream.generate({ model: upstreamModel, messages: call.messages, tools: call.tools, toolChoice: call.toolChoice, maxTokens: call.maxTokens, hints: call.hints, attempt }, abort.signal)[Symbol.asyncIterator]();
        for (;;) {
          const r = await nextWithin(it, deps.upstreamTimeoutMs, abort);
          if (sink.signal.aborted) throw new ClientGoneError();
          if (r.done) break;
          const event = r.value;
          if (event.type === 'done') {
            done = event;
            break;
          }
          if (!began && sink.streaming) {
            began = true;
            await sink.start(upstream.name);
          }
          chunks++;
          if (event.type === 'text') {
            text += event.text;
            if (sink.streaming) await sink.text(event.text);
          } else if (event.type === 'tool_call') {
            toolCalls[event.index] = { id: event.id, name: event.name, arguments: '' };
            if (sink.streaming) await sink.toolCall(event.index, event.id, event.name);
          } else {
            const tc = toolCalls[event.index];
            if (!tc) throw new UpstreamError('status', 502, `upstream sent arguments of an unopened tool call ${event.index}`);
            tc.arguments += event.delta;
            if (sink.streaming) await sink.toolArgs(event.index, event.delta);
          }
          if (sink.signal.aborted) throw new ClientGoneError();
        }
        if (!done) throw new UpstreamError('status', 502, 'upstream ended without finishing');
        await record('completed');
        return { text, toolCalls: toolCalls.filter(Boolean), finishReason: done.finishReason, inputTokens: done.inputTokens, outputTokens: done.outputTokens, upstream: upstream.name, attempts: attempt };
      } catch (err) {
        abort.abort();
        if (err instanceof ClientGoneError || sink.signal.aborted) {
          await record('disconnected');
          throw new ClientGoneError();
        }
        if (!(err instanceof UpstreamError)) throw err;
        await record('failed');
        if (began) throw new StreamBrokenError(err);
        // A refusal of the request itself (400, 401, 404 upstream) would be refused by every step alike.
        if (!err.failsOver) throw err;
        lastError = err;
      } finally {
        sink.signal.removeEventListener('abort', onGone);
      }
    }
    throw lastError ?? new UpstreamError('status', 502, 'no upstream serves this model');
  } finally {
    const settle = { type: 'SettleSpend' as const, ...base, actualMicros: spent, now: ports.now() };
    await ledger.decide(budget, capped ? settle : [reserve, settle], ctx);
  }
}
