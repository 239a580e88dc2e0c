/** createHttpApp: the NestFastifyApplication with every HTTP convention wired in. */
import { DynamicModule, Global, LoggerService, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pino from 'pino';
import { AUTHENTICATOR, Authenticator } from './auth';
import { errorDocument } from './envelope';
import { httpsRequired } from './errors';
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

function plainHttpRejector(): Server {
  return createServer((req, res) => {
    req.resume();
    const body = JSON.stringify(errorDocument(httpsRequired().toErrorObjects()));
    res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestIdFor(req.headers['x-request-id']), 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

function registerDocs(fastify: FastifyInstance, info?: OpenApiInfo): void {
  let doc: unknown;
  fastify.get('/v1/openapi.json', { config: { public: true } }, async (_req, reply) => {
    doc ??= buildOpenApiDocument(info);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(doc));
  });
  fastify.get('/docs', { config: { public: true } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(DOCS_HTML));
  fastify.get('/docs/init.js', { config: { public: true } }, async (_req, reply) => reply.type('application/javascript; charset=utf-8').send(DOCS_INIT_JS));
  for (const name of DOCS_ASSETS) {
    const type = name.endsWith('.css') ? 'text/css; charset=utf-8' : name.endsWith('.png') ? 'image/png' : 'application/javascript; charset=utf-8';
    fastify.get(`/docs/${name}`, { config: { public: true } }, async (_req, reply) => reply.type(type).header('cache-control', 'public, max-age=3600').send(readDocsAsset(name)));
  }
}

export async function createHttpApp(rootModule: Type<unknown> | DynamicModule, options: HttpAppOptions): Promise<HttpApp> {
  const tls = options.tls === false ? undefined : options.tls ?? loadOrCreateSelfSigned(options.dataDir);
  if (!tls && !options.trustProxy) throw new Error('tls: false is only allowed behind a TLS-terminating proxy (trustProxy: true)');
  const adapter = new FastifyAdapter({
    ...(tls ? { https: { key: tls.key, cert: tls.cert } } : {}),
    bodyLimit: options.bodyLimit ?? BODY_LIMIT,
    // Path ids are opaque: a long unknown one is looked up and answers 404 like any other (the
    // default, 100, answered 414 for them). Each route's schema still bounds what it accepts.
    maxParamLength: 1024,
    trustProxy: options.trustProxy,
    loggerInstance: options.logger,
    // (deprecated in fastify 5.x in favour of logController, but @nestjs/platform-fastify bundles its own fastify copy)
    disableRequestLogging: true,
    requestIdLogLabel: 'reqId',
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  const routes = new RouteTable();
  routes.attach(fastify);
  registerJsonBodyParser(fastify, options.bodyLimit ?? BODY_LIMIT);
  installPipeline(fastify, { ...options, tlsEnabled: !!tls });
  registerDocs(fastify, options.openApi);

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

  let plain: Server | undefined;
  return {
    app,
    fastify,
    async listen() {
      await app.listen(options.port, options.host ?? '0.0.0.0');
      const addr = fastify.server.address() as AddressInfo;
      const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
      const result: { url: string; httpUrl?: string } = { url: `${tls ? 'https' : 'http'}://${host}:${addr.port}` };
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
