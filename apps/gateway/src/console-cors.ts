import type { FastifyInstance } from 'fastify';

const METHODS = 'GET, POST, PATCH, DELETE';
const HEADERS = 'content-type, x-service-api-key, authorization';

/**
 * CORS for the web console (served by the API, another origin: another port) on the gateway's
 * management routes only: `/api/*` (session, keys, usage, spend, catalog), for the configured console
 * origins only, with credentials (the session cookie). Never `*`, never on the inference routes
 * (`/v1/*`): an organization key stays a server-side secret, and no page may read a completion.
 * The session cookie stays `SameSite=Strict`: the console and the gateway are one site (ports are
 * not part of a site), so the browser sends it on the console's credentialed calls and on no
 * other site's. A preflight from a console origin is answered 204 here; any other is left to the
 * routes (404, without CORS headers, so the browser refuses it).
 */
export function registerConsoleCors(app: FastifyInstance, origins: readonly string[]): void {
  const allowed = new Set(origins.filter((o) => o && o !== '*' && o !== 'null'));
  if (allowed.size === 0) return;
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/api/')) return;
    reply.header('vary', 'origin');
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true');
    if (req.method === 'OPTIONS' && typeof req.headers['access-control-request-method'] === 'string') {
      return reply.code(204).header('access-control-allow-methods', METHODS).header('access-control-allow-headers', HEADERS).header('access-control-max-age', '600').send();
    }
  });
}
