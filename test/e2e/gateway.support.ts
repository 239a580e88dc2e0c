import { request } from 'node:https';
import { Readable } from 'node:stream';
import Redis from 'ioredis';
import { createGateway } from '../../apps/gateway/src/gateway';
import { loadOrCreateSelfSigned } from '../../libs/http/src/tls';
import { MemoryRateLimitStore, RedisRateLimitStore } from '../../libs/http/src/rate-limit';
import { client } from '../support/http-client';
import type { TestServer } from '../support/test-server';

export interface TestGateway {
  url: string;
  /** Requests with no credential, or with the headers given. */
  http: (headers?: Record<string, string>) => ReturnType<typeof client>;
  close(): Promise<void>;
}

/** The embedded profile's counters live in the process: every gateway of one test server shares them, as Redis is shared on the server profile. */
const memoryCounters = new WeakMap<TestServer, MemoryRateLimitStore>();

/** A gateway beside a test server's API, on its platform (the event store and read models it shares), as `npm start` runs it. */
export async function startTestGateway(srv: TestServer, opts: { upstreamTimeoutMs?: number; port?: number; consoleOrigins?: string[] } = {}): Promise<TestGateway> {
  const redis = srv.env.REDIS_URL ? new Redis(srv.env.REDIS_URL, { maxRetriesPerRequest: 1 }) : null;
  if (!redis && !memoryCounters.has(srv)) memoryCounters.set(srv, new MemoryRateLimitStore());
  const gw = await createGateway({
    ports: srv.platform,
    logger: srv.platform.logger,
    cloudAuth: srv.identity,
    hasher: srv.identity.hasher,
    rateLimits: redis ? new RedisRateLimitStore(redis, `gw:${srv.env.PG_SCHEMA}:`) : memoryCounters.get(srv)!,
    tls: loadOrCreateSelfSigned(srv.dataDir),
    host: '127.0.0.1',
    port: 0,
    ...opts,
  });
  return {
    url: gw.url,
    http: (headers = {}) => client(gw.url, headers),
    async close() {
      await gw.close();
      redis?.disconnect();
    },
  };
}

/** `fetch` for the SDKs against the self-signed test certificate (node:https with rejectUnauthorized off, streamed bodies). */
export const insecureFetch = (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
  const url = typeof input === 'string' || input instanceof URL ? new URL(String(input)) : new URL(input.url);
  const headers: Record<string, string> = {};
  new Headers(init.headers ?? {}).forEach((v, k) => (headers[k] = v));
  return new Promise<Response>((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers, rejectUnauthorized: false }, (res) => {
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
      const body = res.statusCode === 204 ? null : (Readable.toWeb(res) as unknown as ReadableStream);
      resolve(new Response(body, { status: res.statusCode ?? 0, headers: h }));
    });
    req.on('error', reject);
    init.signal?.addEventListener('abort', () => req.destroy(new DOMException('aborted', 'AbortError')), { once: true });
    if (init.body !== undefined && init.body !== null) req.write(init.body as string);
    req.end();
  });
}) as typeof fetch;

/** Opens a session with a cloud credential and returns the cookie header to send. */
export async function openSession(gw: TestGateway, cloudKey: string): Promise<string> {
  const res = await gw.http({ 'X-Service-API-Key': cloudKey }).post('/api/session', {});
  if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
  const set = String(res.headers['set-cookie']);
  return set.split(';')[0];
}
