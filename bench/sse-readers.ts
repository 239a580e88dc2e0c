/**
 * SSE readers in a process of their own (bench/events.bench.ts, item e2): the parsing of every copy
 * of every event is not charged to the server's event loop. Opens `subscribers` readers of `path`,
 * says `ready`, and answers `stop` with the count and the sorted append→receive latencies.
 */
import * as https from 'node:https';

export interface ReadersSpec {
  url: string;
  apiKey: string;
  path: string;
  subscribers: number;
  /** Copies to expect in all: the result is sent once they all arrived (or on `stop`). */
  expected: number;
}
export interface ReadersResult {
  received: number;
  firstAt: number;
  lastAt: number;
  latencies: number[];
  /** CPU time the readers' process used (user + system), ms: whether parsing kept pace on its own. */
  cpuMs: number;
}

function open(spec: ReadersSpec, onEvent: (latencyMs: number) => void): Promise<() => void> {
  const u = new URL(spec.url);
  return new Promise((resolve, reject) => {
    const req = https.request({ method: 'GET', hostname: u.hostname, port: u.port, path: spec.path, headers: { 'x-service-api-key': spec.apiKey, accept: 'text/event-stream' }, rejectUnauthorized: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (t: string) => {
        buffer += t;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const at = frame.indexOf('"time":"');
          if (frame.includes('\ndata: ') && at >= 0) onEvent(Date.now() - Date.parse(frame.slice(at + 8, frame.indexOf('"', at + 8))));
        }
      });
      res.on('error', () => undefined);
      resolve(() => req.destroy());
    });
    req.on('error', () => undefined);
    req.end();
  });
}

if (process.env.BENCH_READERS_CHILD === '1' && process.send) {
  process.once('message', async (spec: ReadersSpec) => {
    const result: ReadersResult = { received: 0, firstAt: 0, lastAt: 0, latencies: [], cpuMs: 0 };
    const cpu = process.cpuUsage();
    let closers: Array<() => void> = [];
    let sent = false;
    const finish = () => {
      if (sent) return;
      sent = true;
      for (const close of closers) close();
      result.latencies.sort((a, b) => a - b);
      const used = process.cpuUsage(cpu);
      result.cpuMs = (used.user + used.system) / 1000;
      process.send!(result, () => process.exit(0));
    };
    closers = await Promise.all(
      Array.from({ length: spec.subscribers }, () =>
        open(spec, (ms) => {
          const now = Date.now();
          if (result.received === 0) result.firstAt = now;
          result.received += 1;
          result.lastAt = now;
          result.latencies.push(ms);
          if (result.received >= spec.expected) finish();
        }),
      ),
    );
    process.send!('ready');
    process.once('message', finish);
  });
}
