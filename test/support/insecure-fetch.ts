import { request } from 'node:https';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * `fetch` for the test server's self-signed certificate (Node's fetch takes no per-call TLS options):
 * the request over node:https, the answer a streaming web Response, aborts honoured.
 */
export const insecureFetch: typeof fetch = async (input, init) => {
  const r = new Request(input, init);
  const body = r.body ? Buffer.from(await r.arrayBuffer()) : undefined;
  return new Promise<Response>((resolve, reject) => {
    const req = request(r.url, { method: r.method, headers: Object.fromEntries(r.headers), rejectUnauthorized: false, signal: r.signal }, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) for (const one of v === undefined ? [] : Array.isArray(v) ? v : [v]) headers.append(k, one);
      const status = res.statusCode ?? 0;
      const empty = status === 204 || status === 304 || r.method === 'HEAD';
      if (empty) res.resume();
      resolve(new Response(empty ? null : (Readable.toWeb(res) as WebReadableStream as unknown as ReadableStream), { status, headers }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
};
