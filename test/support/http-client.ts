import { request } from 'node:https';

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

/** A tiny HTTPS client for the self-signed test server. */
export function client(baseUrl: string, defaults: Record<string, string> = {}) {
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = request(
        new URL(path, baseUrl),
        {
          method,
          rejectUnauthorized: false,
          headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...defaults, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* not JSON */
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
          });
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  return {
    get: (path: string, headers?: Record<string, string>) => send('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => send('POST', path, body ?? {}, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => send('PATCH', path, body ?? {}, headers),
    delete: (path: string, headers?: Record<string, string>) => send('DELETE', path, undefined, headers),
    send,
  };
}
