import { session } from './api';

/** A CloudEvent as the event stream and GET /v1/events carry it (DECISIONS 20). */
export interface CloudEvent {
  id: string;
  type: string;
  subject?: string;
  time?: string;
  position?: number;
  data?: Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * Reads GET /v1/events/stream with fetch, because a browser's EventSource cannot send the API key
 * header (nor a bearer token). Parses the SSE frames (`id:`, `data:`, comments) and, when the connection drops,
 * reconnects after the last id seen (`?after=`), so nothing is lost or repeated. Returns a stop function.
 */
export function subscribe(filter: { type?: string; subject?: string }, onEvent: (e: CloudEvent) => void, onState?: (live: boolean) => void): () => void {
  let stopped = false;
  let lastId: string | undefined;
  let controller: AbortController | undefined;
  let retryMs = 500;

  const connect = async () => {
    while (!stopped) {
      controller = new AbortController();
      const q = new URLSearchParams();
      if (filter.type) q.set('type', filter.type);
      if (filter.subject) q.set('subject', filter.subject);
      if (lastId) q.set('after', lastId);
      try {
        const res = await fetch(`/v1/events/stream?${q}`, { headers: { accept: 'text/event-stream', ...session.headers() }, signal: controller.signal, cache: 'no-store' });
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        onState?.(true);
        retryMs = 500;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
            let id: string | undefined;
            const data: string[] = [];
            for (const line of frame.split(/\r?\n/)) {
              if (line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id') id = val;
              else if (field === 'data') data.push(val);
            }
            if (id) lastId = id;
            if (data.length) {
              try {
                onEvent(JSON.parse(data.join('\n')) as CloudEvent);
              } catch {
                // A frame that is not JSON is not ours to show.
              }
            }
          }
        }
      } catch {
        if (stopped) return;
      }
      onState?.(false);
      if (stopped) return;
      await new Promise((r) => setTimeout(r, retryMs));
      retryMs = Math.min(retryMs * 2, 10_000);
    }
  };
  void connect();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
