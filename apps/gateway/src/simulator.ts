import { setTimeout as sleep } from 'node:timers/promises';
import { estimateTokens, inputTextOf, UpstreamError, type Upstream, type UpstreamEvent, type UpstreamRequest } from '../../../usecases/gateway/upstream.port';

/** The simulator's hint headers: only it reads them, real upstreams never see them. */
export const SIMULATOR_HINTS = ['x-simulator-fault', 'x-simulator-tokens', 'x-simulator-chunk-delay-ms'] as const;

export interface Fault {
  kind: 'status' | 'timeout';
  status: number;
  /** Content chunks sent before failing: 0 = before the first byte. */
  atChunk: number;
}

/**
 * `x-simulator-fault`: one entry per attempt, comma separated: `ok`, `<status>@<chunk>` (a 5xx or
 * 429) or `timeout@<chunk>`; chunk 0 fails before the first byte, k after k content chunks. Attempts
 * past the list succeed. Example: `503@0,ok` fails the first upstream of the waterfall, the second answers.
 */
export function faultFor(header: string | undefined, attempt: number): Fault | null {
  const entry = header?.split(',')[attempt - 1]?.trim();
  if (!entry || entry === 'ok') return null;
  const m = /^(timeout|[45]\d\d)@(\d{1,6})$/.exec(entry);
  if (!m) return null;
  return m[1] === 'timeout' ? { kind: 'timeout', status: 504, atChunk: Number(m[2]) } : { kind: 'status', status: Number(m[1]), atChunk: Number(m[2]) };
}

/** The answer the simulator gives: deterministic words from the conversation, one token each. */
export function simulatedWords(request: Pick<UpstreamRequest, 'model' | 'messages' | 'hints'>): string[] {
  const asked = Number(request.hints['x-simulator-tokens']);
  const last = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const echo = last.split(/\s+/).filter(Boolean).slice(0, 12);
  const words = ['Simulated', 'answer', 'of', `${request.model}`, 'to:', ...echo, '(end)'];
  if (Number.isSafeInteger(asked) && asked > 0) {
    const out: string[] = [];
    for (let i = 0; i < asked; i++) out.push(words[i % words.length]);
    return out;
  }
  return words;
}

/** A deterministic local upstream (the default): same input, same answer; faults chosen by the caller's hints. */
export class SimulatorUpstream implements Upstream {
  constructor(readonly name = 'simulator') {}

  async *generate(request: UpstreamRequest, signal: AbortSignal): AsyncIterable<UpstreamEvent> {
    const fault = faultFor(request.hints['x-simulator-fault'], request.attempt);
    const last = request.messages[request.messages.length - 1];
    const tool = request.toolChoice !== 'none' && last?.role !== 'tool' ? request.tools?.[0] : undefined;
    if (tool && !fault) {
      // With tools offered (and no result of one yet) the simulator calls the first, its arguments in two deltas.
      const args = JSON.stringify({ input: last?.content ?? '' });
      yield { type: 'tool_call', index: 0, id: `call_sim_${request.attempt}`, name: tool.name };
      yield { type: 'tool_args', index: 0, delta: args.slice(0, 5) };
      yield { type: 'tool_args', index: 0, delta: args.slice(5) };
      yield { type: 'done', finishReason: 'tool_calls', inputTokens: estimateTokens(inputTextOf(request.messages, request.tools)), outputTokens: 3 };
      return;
    }
    const delay = Math.min(Number(request.hints['x-simulator-chunk-delay-ms']) || 0, 10_000);
    const words = simulatedWords(request);
    const n = Math.min(words.length, request.maxTokens);
    for (let i = 0; i <= n; i++) {
      if (fault && fault.atChunk === i) {
        if (fault.kind === 'timeout') {
          // Silent until the gateway gives up on it.
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          return;
        }
        throw new UpstreamError('status', fault.status, `simulated upstream ${fault.status}`);
      }
      if (i === n) break;
      if (signal.aborted) return;
      if (delay) await sleep(delay, undefined, { signal }).catch(() => undefined);
      else await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal.aborted) return;
      yield { type: 'text', text: i === 0 ? words[i] : ` ${words[i]}` };
    }
    const input = request.messages.map((m) => m.content).join('\n');
    yield { type: 'done', finishReason: n < words.length ? 'length' : 'stop', inputTokens: estimateTokens(input), outputTokens: n };
  }
}
