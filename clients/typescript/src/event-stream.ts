import { retryAfterMs, sleep, specBackoffMs } from './retry';

/** One event of the project's history, as the stream sends it: its position in the log and its CloudEvent. */
export interface StreamedEvent<E = CloudEvent> {
  position: number;
  event: E;
}

/** The CloudEvent of the topics (DECISIONS 20). */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  data: Record<string, unknown>;
  position: number;
  streamrevision: number;
  correlationid?: string;
  causationid?: string;
  livemode: boolean;
}

export interface EventStreamOptions {
  /** Event types or prefixes (`compute`, `billing.Invoice`). */
  types?: string[];
  /** One stream, e.g. `instance-<id>`. */
  subject?: string;
  /** Start right after this position (default: at the next event). */
  after?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
  /** The wait before reconnect `n` after a failure (default: the spec's 1 s · 2^n, at most 16 s). */
  reconnectMs?: (attempt: number) => number;
}

interface Connection {
  baseUrl: string;
  headers: () => Record<string, string>;
  fetch: typeof fetch;
}

/** A refusal the stream cannot get past by reconnecting (a 4xx other than 429). */
export class EventStreamError extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(`GET /v1/events/stream answered ${status}`);
  }
}

/**
 * Follows `GET /v1/events/stream` (server-sent events over fetch) and reconnects by itself, with
 * `Last-Event-ID` set to the last position seen (an event's, or an id-only frame's): the iteration
 * loses and repeats nothing across reconnects. Stops when `signal` aborts or the loop breaks.
 */
export async function* streamEvents(c: Connection, o: EventStreamOptions = {}): AsyncGenerator<StreamedEvent> {
  let last = o.after;
  let failures = 0;
  const reconnectMs = o.reconnectMs ?? ((n: number) => Math.min(specBackoffMs(n), 16_000));
  while (!o.signal?.aborted) {
    const url = new URL('/v1/events/stream', c.baseUrl);
    if (o.types?.length) url.searchParams.set('type', o.types.join(','));
    if (o.subject) url.searchParams.set('subject', o.subject);
    const headers: Record<string, string> = { ...c.headers(), accept: 'text/event-stream' };
    if (last !== undefined) headers['last-event-id'] = String(last);
    let res: Response;
    try {
      res = await c.fetch(url, { headers, signal: o.signal });
    } catch (err) {
      if (o.signal?.aborted) return;
      await sleep(reconnectMs(failures++), o.signal).catch(() => undefined);
      continue;
    }
    if (res.status !== 200) {
      const text = await res.text().catch(() => '');
      if (res.status !== 429 && res.status < 500) throw new EventStreamError(res.status, parse(text));
      await sleep(retryAfterMs(res) ?? reconnectMs(failures++), o.signal).catch(() => undefined);
      continue;
    }
    failures = 0;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | undefined;
          let data: string | undefined;
          for (const line of frame.split('\n')) {
            if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('data:')) data = (data === undefined ? '' : `${data}\n`) + line.slice(5).trimStart();
          }
          if (id === undefined) continue;
          last = Number(id);
          if (data !== undefined) yield { position: last, event: JSON.parse(data) as CloudEvent };
        }
      }
    } catch {
      // The connection broke: reconnect below with the last position seen.
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    if (o.signal?.aborted) return;
    // The server ended the stream (it is restarting): come back at once, then back off if it keeps failing.
    if (failures > 0) await sleep(reconnectMs(failures - 1), o.signal).catch(() => undefined);
    failures += 1;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
