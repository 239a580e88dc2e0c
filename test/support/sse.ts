import { request } from 'node:https';

export interface SseFrame {
  id?: string;
  data?: string;
  comments: string[];
}

/** An SSE reader for the self-signed test server: every frame as parsed, the last id, and waits on them. */
export interface SseClient {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Body of a refused (non-200) request. */
  body: string;
  frames: SseFrame[];
  /** The last `id:` seen (what a browser's EventSource would send as Last-Event-ID). */
  lastId: string | undefined;
  /** The response ended (the server cut it, or `close()`): no frame comes after this. */
  ended: boolean;
  /** Frames with data: `[position, CloudEvent]`. */
  events(): Array<[number, Record<string, unknown>]>;
  waitFor(ok: (c: SseClient) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
  closed: Promise<void>;
}

export function openSse(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const waiters = new Set<() => void>();
    let done!: () => void;
    const closed = new Promise<void>((r) => (done = r));
    const c: SseClient = {
      status: 0,
      headers: {},
      body: '',
      frames: [],
      lastId: undefined,
      ended: false,
      events: () => c.frames.filter((f) => f.data !== undefined).map((f) => [Number(f.id), JSON.parse(f.data!)]),
      waitFor: (ok, timeoutMs = 20_000) =>
        new Promise<void>((res, rej) => {
          if (ok(c)) return res();
          const timer = setTimeout(() => (waiters.delete(check), rej(new Error(`SSE condition not met in ${timeoutMs} ms; ${c.frames.length} frames, last id ${c.lastId}`))), timeoutMs);
          const check = () => {
            if (!ok(c)) return;
            clearTimeout(timer);
            waiters.delete(check);
            res();
          };
          waiters.add(check);
        }),
      close: () => req.destroy(),
      closed,
    };
    let buffer = '';
    const req = request(new URL(path, baseUrl), { method: 'GET', rejectUnauthorized: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      c.status = res.statusCode ?? 0;
      c.headers = res.headers;
      res.setEncoding('utf8');
      if (c.status !== 200) {
        res.on('data', (t: string) => (c.body += t));
        res.on('end', () => (done(), resolve(c)));
        return;
      }
      resolve(c);
      res.on('data', (t: string) => {
        buffer += t;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const frame: SseFrame = { comments: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
            else if (line.startsWith('id:')) frame.id = line.slice(3).trim();
            else if (line.startsWith('data:')) frame.data = (frame.data === undefined ? '' : `${frame.data}\n`) + line.slice(5).trimStart();
          }
          if (frame.id !== undefined) c.lastId = frame.id;
          c.frames.push(frame);
        }
        for (const w of [...waiters]) w();
      });
      res.on('close', () => {
        c.ended = true;
        for (const w of [...waiters]) w();
        done();
      });
    });
    req.on('error', (err) => (c.status ? done() : reject(err)));
    req.end();
  });
}
