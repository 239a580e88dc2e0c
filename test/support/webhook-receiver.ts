import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './wait';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The status this receiver answered. */
  status: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`: endpoints are `<url>/<anything>`. */
  url: string;
  received: ReceivedWebhook[];
  /** Answers the next `n` requests to `path` with a 500. */
  failNext(path: string, n: number): void;
  /** Answers every request to `path` with a 503 until told otherwise. */
  failAlways(path: string, on: boolean): void;
  /**
   * While on, a request to `path` is recorded (status 200) and answered with the 200's status line,
   * headers and the first byte of its body, the rest held until `hold(path, false)`: the receiver has
   * taken the message and said 2xx, and the sender cannot finish reading the answer (so cannot have
   * recorded it). Turning it off completes the held answers (on connections still open).
   */
  hold(path: string, on: boolean): void;
  /** How many answers are held now. */
  held(): number;
  /** The requests to `path` so far, once `count` have arrived (fails the test when they do not in time). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A plain-HTTP webhook receiver on loopback that records every delivery and fails on demand. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const failures = new Map<string, number>();
  const broken = new Set<string>();
  const holding = new Set<string>();
  const heldAnswers: Array<{ path: string; finish: () => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const left = failures.get(path) ?? 0;
      const status = broken.has(path) ? 503 : left > 0 ? 500 : 200;
      if (left > 0) failures.set(path, left - 1);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), status });
      if (status === 200 && holding.has(path)) {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
        res.write('o');
        heldAnswers.push({ path, finish: () => void (res.destroyed || res.end('k')) });
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try later');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    failNext: (path, n) => void failures.set(path, n),
    failAlways: (path, on) => void (on ? broken.add(path) : broken.delete(path)),
    hold: (path, on) => {
      if (on) return void holding.add(path);
      holding.delete(path);
      for (let i = heldAnswers.length - 1; i >= 0; i--) if (heldAnswers[i].path === path) heldAnswers.splice(i, 1)[0].finish();
    },
    held: () => heldAnswers.length,
    waitFor: (path, count, timeoutMs = 20000) =>
      eventually(
        async () => received.filter((r) => r.path === path),
        (rs) => rs.length >= count,
        timeoutMs,
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
