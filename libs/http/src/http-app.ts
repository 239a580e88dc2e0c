/** createHttpApp: the NestFastifyApplication with every HTTP convention wired in. */
import { DynamicModule, Global, LoggerService, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyHelmet from '@fastify/helmet';
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HelmetOptions } from 'helmet';
import { createServer, IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname } from 'node:path';
import type pino from 'pino';
import { AUTHENTICATOR, Authenticator } from './auth';
import { errorDocument } from './envelope';
import { ERROR_STATUS, httpsRequired, type ErrorCode } from './errors';
import { ApiExceptionFilter } from './exception-filter';
import { IdempotencyStore } from './idempotency';
import { BODY_LIMIT, registerJsonBodyParser } from './json-body';
import { buildOpenApiDocument, DOCS_ASSETS, DOCS_HTML, DOCS_INIT_JS, OpenApiInfo, readDocsAsset } from './openapi';
import { installPipeline, requestIdFor } from './pipeline';
import { RateLimiter } from './rate-limit';
import { RouteTable } from './route-table';
import { loadOrCreateSelfSigned, TlsPair } from './tls';

export interface HttpAppOptions {
  port: number;
  host?: string;
  dataDir: string;
  /** Cert/key pair; omitted → self-signed pair in <dataDir>/tls/; false → plain HTTP (only behind a TLS proxy with trustProxy). */
  tls?: TlsPair | false;
  /** Optional plain-HTTP listener that answers every request 403 HTTPS_REQUIRED. */
  httpPort?: number;
  trustProxy: boolean;
  logger: pino.Logger;
  rateLimiter: RateLimiter;
  idempotencyStore: IdempotencyStore;
  authenticator: Authenticator;
  bodyLimit?: number;
  idempotencyLockMs?: number;
  openApi?: OpenApiInfo;
}

export const HTTP_APP_OPTIONS = Symbol('HTTP_APP_OPTIONS');

export interface HttpApp {
  app: NestFastifyApplication;
  fastify: FastifyInstance;
  /** Starts both listeners; resolves with their base URLs. */
  listen(): Promise<{ url: string; httpUrl?: string }>;
  close(): Promise<void>;
}

@Global()
@Module({})
class HttpCoreModule {}

@Module({})
class HttpRootModule {}

function nestLogger(logger: pino.Logger): LoggerService {
  return {
    log: (m: unknown) => logger.debug({ nest: true }, String(m)),
    error: (m: unknown, trace?: string) => logger.error({ nest: true, trace }, String(m)),
    warn: (m: unknown) => logger.warn({ nest: true }, String(m)),
    debug: (m: unknown) => logger.debug({ nest: true }, String(m)),
    verbose: (m: unknown) => logger.trace({ nest: true }, String(m)),
  };
}

// ---------------------------------------------------------------- security headers (@fastify/helmet)
/** API answers are JSON: nothing may load, frame or be framed. */
const API_CSP = { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } };
/** /docs (swagger-ui from local files): scripts, styles, images and the document from this origin only; swagger-ui sets inline styles. */
export const DOCS_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'", "'unsafe-inline'"], imgSrc: ["'self'", 'data:'], fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"], objectSrc: ["'none'"], baseUri: ["'self'"], formAction: ["'self'"], frameAncestors: ["'none'"],
  },
};
/** Helmet's defaults (HSTS 1 year with subdomains, nosniff, no-referrer, frame and cross-origin policies) with the API's CSP. */
const HELMET_OPTIONS = { contentSecurityPolicy: API_CSP } satisfies HelmetOptions;

// Resolved from the packages that use them, so the same module instances are used (Nest bundles its own fastify).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const helmet = require(require.resolve('helmet', { paths: [dirname(require.resolve('@fastify/helmet'))] })) as (o: HelmetOptions) => (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nestFastify = require(require.resolve('fastify', { paths: [dirname(require.resolve('@nestjs/platform-fastify'))] })) as {
  LogController: new (o: { disableRequestLogging?: boolean; requestIdLogLabel?: string }) => unknown;
};

/** The headers helmet sets, for the answers written outside Fastify's request cycle (431, 414, plain HTTP). */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (k: string, v: unknown) => (headers[k.toLowerCase()] = String(v)), removeHeader: (k: string) => delete headers[k.toLowerCase()] };
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}
export const SECURITY_HEADERS: Readonly<Record<string, string>> = helmetHeaders(HELMET_OPTIONS);

const wantsJsonApi = (accept: string | string[] | undefined) => String(accept ?? '').includes('application/vnd.api+json');

/**
 * Errors Fastify raises before routing (`frameworkErrors`): a path segment over maxParamLength
 * (414) or a malformed URL (400). Answered in the JSON:API shape without echoing the URL.
 */
function frameworkError(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const status = tooLong ? 414 : 400;
  const detail = tooLong ? `A path segment of the URL is longer than ${MAX_PARAM_LENGTH} characters` : 'The request URL is malformed';
  const body = JSON.stringify(errorDocument([{ status: String(status), code: tooLong ? 'URI_TOO_LONG' : 'BAD_REQUEST', detail }]));
  void reply
    .code(status)
    .headers({ ...SECURITY_HEADERS, 'x-request-id': req.id })
    .type(wantsJsonApi(req.headers.accept) ? 'application/vnd.api+json' : 'application/json; charset=utf-8')
    .send(body);
}

/**
 * Errors of the HTTP parser, before any request exists (`clientErrorHandler`): headers over
 * Node's 16 KiB (431), a timeout (408), anything else unparseable (400). JSON:API shape, no echo.
 */
function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail]: [ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW' ? ['HEADERS_TOO_LARGE', 'The request headers are larger than 16 KiB']
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? ['REQUEST_TIMEOUT', 'The request was not received in time']
    : ['BAD_REQUEST', 'The request is not valid HTTP'];
  const status = ERROR_STATUS[code];
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(errorDocument([{ status: String(status), code, detail }]));
  const headers = { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': requestIdFor(undefined), connection: 'close' };
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`);
}

function plainHttpRejector(): Server {
  return createServer((req, res) => {
    req.resume();
    const body = JSON.stringify(errorDocument(httpsRequired().toErrorObjects()));
    res.writeHead(403, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestIdFor(req.headers['x-request-id']), 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

function registerDocs(fastify: FastifyInstance, info: () => OpenApiInfo): void {
  let doc: unknown;
  fastify.get('/v1/openapi.json', { config: { public: true } }, async (_req, reply) => {
    doc ??= buildOpenApiDocument(info());
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(doc));
  });
  const docs = { config: { public: true }, helmet: { contentSecurityPolicy: DOCS_CSP } };
  fastify.get('/docs', docs, async (_req, reply) => reply.type('text/html; charset=utf-8').send(DOCS_HTML));
  fastify.get('/docs/init.js', docs, async (_req, reply) => reply.type('application/javascript; charset=utf-8').send(DOCS_INIT_JS));
  for (const name of DOCS_ASSETS) {
    const type = name.endsWith('.css') ? 'text/css; charset=utf-8' : name.endsWith('.png') ? 'image/png' : 'application/javascript; charset=utf-8';
    fastify.get(`/docs/${name}`, docs, async (_req, reply) => reply.type(type).header('cache-control', 'public, max-age=3600').send(readDocsAsset(name)));
  }
}

/** A client's WebSocket message is a small JSON command (the event streams' subscribe): larger ones close the socket (1009). */
const WS_MAX_PAYLOAD = 64 * 1024;

/** Path ids are opaque: a long unknown one is looked up and answers 404 like any other (Fastify's default, 100, answered 414 for them). */
const MAX_PARAM_LENGTH = 1024;

export async function createHttpApp(rootModule: Type<unknown> | DynamicModule, options: HttpAppOptions): Promise<HttpApp> {
  const tls = options.tls === false ? undefined : options.tls ?? loadOrCreateSelfSigned(options.dataDir);
  if (!tls && !options.trustProxy) throw new Error('tls: false is only allowed behind a TLS-terminating proxy (trustProxy: true)');
  const adapter = new FastifyAdapter({
    ...(tls ? { https: { key: tls.key, cert: tls.cert } } : {}),
    bodyLimit: options.bodyLimit ?? BODY_LIMIT,
    // Each route's schema still bounds what it accepts; longer segments answer 414 (frameworkError).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    trustProxy: options.trustProxy,
    loggerInstance: options.logger,
    // The pipeline logs each request itself (logging.ts); the log controller is Fastify's current
    // place for these two settings (the top-level options are deprecated, FSTDEP023/024).
    logController: new nestFastify.LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    genReqId: (req: IncomingMessage) => requestIdFor(req.headers['x-request-id']),
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  } as unknown as ConstructorParameters<typeof FastifyAdapter>[0]);
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  // First, so its onRequest hook sets the headers before any hook of the pipeline can answer.
  await fastify.register(fastifyHelmet, HELMET_OPTIONS);
  // Upgrades go through the same hooks as any request (auth, limits, validation) before a route's
  // `wsHandler` takes the socket; a route without one closes an upgraded socket at once.
  await fastify.register(fastifyWebsocket, { options: { maxPayload: WS_MAX_PAYLOAD } });
  const routes = new RouteTable();
  routes.attach(fastify);
  registerJsonBodyParser(fastify, options.bodyLimit ?? BODY_LIMIT);
  // A route's query credential (the event stream's ticket) is redeemed with the application's providers once the Nest app exists.
  let nest: NestFastifyApplication | undefined;
  const resolve = <T>(token: abstract new (...args: never[]) => T): T => {
    if (!nest) throw new Error('the application is not initialised yet');
    return nest.get(token as never, { strict: false }) as T;
  };
  installPipeline(fastify, { ...options, tlsEnabled: !!tls, resolve });
  let listeningUrl: string | undefined;
  registerDocs(fastify, () => ({ ...options.openApi, serverUrl: options.openApi?.serverUrl ?? listeningUrl }));

  const core: DynamicModule = {
    module: HttpCoreModule,
    global: true,
    providers: [{ provide: AUTHENTICATOR, useValue: options.authenticator }, { provide: HTTP_APP_OPTIONS, useValue: options }],
    exports: [AUTHENTICATOR, HTTP_APP_OPTIONS],
  };
  const app = await NestFactory.create<NestFastifyApplication>({ module: HttpRootModule, imports: [rootModule, core] }, adapter, {
    bodyParser: false,
    logger: nestLogger(options.logger),
  });
  app.useGlobalFilters(new ApiExceptionFilter(routes));
  await app.init();
  nest = app;

  let plain: Server | undefined;
  return {
    app,
    fastify,
    async listen() {
      await app.listen(options.port, options.host ?? '0.0.0.0');
      const addr = fastify.server.address() as AddressInfo;
      const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
      const result: { url: string; httpUrl?: string } = { url: `${tls ? 'https' : 'http'}://${host}:${addr.port}` };
      listeningUrl = result.url;
      if (options.httpPort !== undefined) {
        plain = plainHttpRejector();
        await new Promise<void>((resolve, reject) => plain!.once('error', reject).listen(options.httpPort, options.host ?? '0.0.0.0', () => resolve()));
        result.httpUrl = `http://${host}:${(plain.address() as AddressInfo).port}`;
      }
      return result;
    },
    async close() {
      if (plain) await new Promise<void>((resolve) => plain!.close(() => resolve()));
      await app.close();
    },
  };
}
