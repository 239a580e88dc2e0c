import WebSocket from 'ws';

/** A WebSocket reader of the event stream for the self-signed test server: every message as parsed, and waits on them. */
export interface WsClient {
  /** 101 when upgraded, else the HTTP status of the refusal. */
  status: number;
  /** Body of a refused upgrade. */
  body: string;
  messages: Array<Record<string, any>>;
  pings: number;
  /** `[position, CloudEvent]` of the event messages. */
  events(): Array<[number, Record<string, any>]>;
  /** The last position the server told (an event's or a bare `{position}`): where to resume. */
  lastPosition(): number | undefined;
  send(message: unknown): void;
  waitFor(ok: (c: WsClient) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
  closed: Promise<{ code: number; reason: string }>;
}

export function openWs(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const waiters = new Set<() => void>();
    let done!: (v: { code: number; reason: string }) => void;
    const closed = new Promise<{ code: number; reason: string }>((r) => (done = r));
    const ws = new WebSocket(new URL(path, baseUrl.replace(/^http/, 'ws')), { headers, rejectUnauthorized: false });
    const notify = () => {
      for (const w of [...waiters]) w();
    };
    const c: WsClient = {
      status: 0,
      body: '',
      messages: [],
      pings: 0,
      events: () => c.messages.filter((m) => m.event !== undefined).map((m) => [m.position as number, m.event]),
      lastPosition: () => [...c.messages].reverse().find((m) => typeof m.position === 'number')?.position,
      send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
      waitFor: (ok, timeoutMs = 20_000) =>
        new Promise<void>((res, rej) => {
          if (ok(c)) return res();
          const timer = setTimeout(() => (waiters.delete(check), rej(new Error(`WebSocket condition not met in ${timeoutMs} ms; messages: ${JSON.stringify(c.messages).slice(-400)}`))), timeoutMs);
          const check = () => {
            if (!ok(c)) return;
            clearTimeout(timer);
            waiters.delete(check);
            res();
          };
          waiters.add(check);
        }),
      close: () => ws.close(),
      closed,
    };
    ws.on('unexpected-response', (_req, res) => {
      c.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (t: string) => (c.body += t));
      res.on('end', () => {
        done({ code: 0, reason: 'refused' });
        resolve(c);
      });
    });
    ws.on('open', () => {
      c.status = 101;
      resolve(c);
    });
    ws.on('message', (data) => {
      c.messages.push(JSON.parse(String(data)));
      notify();
    });
    ws.on('ping', () => {
      c.pings += 1;
      notify();
    });
    ws.on('close', (code, reason) => done({ code, reason: String(reason) }));
    ws.on('error', (err) => (c.status ? undefined : reject(err)));
  });
}
