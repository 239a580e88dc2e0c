import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The web console's CSP: everything from this origin only, no inline script or style, no eval. The
 * bundle sets styles through the CSSOM (element.style), which `style-src 'self'` allows. The one
 * other origin it may call is the inference gateway's (its gateway page), when one is configured.
 */
export function consoleCsp(gatewayUrl?: string) {
  return {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'], fontSrc: ["'self'"],
      connectSrc: ["'self'", ...(gatewayUrl ? [gatewayUrl] : [])], objectSrc: ["'none'"], baseUri: ["'self'"], formAction: ["'self'"], frameAncestors: ["'none'"],
    },
  };
}

/** What the console learns from the server that serves it (meta tags of its page: no inline script). */
export interface ConsoleSettings {
  /** The gateway's origin as browsers reach it (config.console.gatewayUrl); no gateway page without it. */
  gatewayUrl?: string;
  /** Whether identity-provider JWTs are accepted (JWT_ISSUER): the sign-in page then offers them. */
  jwt?: boolean;
}

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const metaTags = (s: ConsoleSettings) =>
  [s.gatewayUrl ? `<meta name="console:gateway" content="${attr(s.gatewayUrl)}">` : '', s.jwt ? '<meta name="console:jwt" content="on">' : ''].filter(Boolean).join('\n');

const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const ASSET_NAME = /^[A-Za-z0-9_-]{1,64}\.(js|css)$/;

/** dist/console beside the package.json above this file (the source tree under ts-jest, dist/ when compiled). */
export function defaultConsoleDir(from = __dirname): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'console');
}

/**
 * Serves the bundle `npm run build:console` writes (scripts/build-console.cjs) under /console: the
 * page revalidated on every load (`no-cache`), the content-hashed assets cached for a year. The
 * files are read once, at start; without a build /console answers 404 saying how to make one.
 */
export function registerConsole(fastify: FastifyInstance, settings: ConsoleSettings = {}, dir = defaultConsoleDir()): void {
  const route = { config: { public: true }, helmet: { contentSecurityPolicy: consoleCsp(settings.gatewayUrl) } };
  const indexFile = path.join(dir, 'index.html');
  const index = fs.existsSync(indexFile) ? Buffer.from(fs.readFileSync(indexFile, 'utf8').replace('</head>', `${metaTags(settings)}\n</head>`)) : null;
  const assets = new Map<string, Buffer>();
  const assetDir = path.join(dir, 'assets');
  if (fs.existsSync(assetDir)) for (const name of fs.readdirSync(assetDir)) if (ASSET_NAME.test(name)) assets.set(name, fs.readFileSync(path.join(assetDir, name)));

  const page = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    if (!index) {
      const body = { errors: [{ status: '404', code: 'NOT_FOUND', detail: 'The console is not built on this server (npm run build:console)' }] };
      return reply.code(404).type('application/json; charset=utf-8').send(JSON.stringify(body));
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(index);
  };
  fastify.get('/console', route, page);
  fastify.get('/console/', route, page);
  fastify.get<{ Params: { name: string } }>('/console/assets/:name', route, async (req, reply) => {
    const body = assets.get(req.params.name);
    if (!body) {
      const err = { errors: [{ status: '404', code: 'NOT_FOUND', detail: 'No such console asset' }] };
      return reply.code(404).type('application/json; charset=utf-8').send(JSON.stringify(err));
    }
    return reply.type(ASSET_TYPES[path.extname(req.params.name)]!).header('cache-control', 'public, max-age=31536000, immutable').send(body);
  });
}
