import * as fs from 'node:fs';
import Redis from 'ioredis';
import type pino from 'pino';
import type { AppConfig } from '../../../libs/config/src/config';
import { createHttpApp, type HttpApp } from '../../../libs/http/src/http-app';
import { MemoryRateLimitStore, RateLimiter, RedisRateLimitStore } from '../../../libs/http/src/rate-limit';
import type { IdempotencyStore } from '../../../libs/http/src/idempotency';
import { EventStreamIdempotencyStore } from '../../../libs/http/src/event-stream-idempotency-store';
import { SqlIdempotencyStore } from '../../../libs/http/src/sql-idempotency-store';
import { CachedIdempotencyStore } from '../../../libs/http/src/cached-idempotency-store';
import { CredentialCipher } from '../../../libs/providers/src/credential-cipher';
import { SqlEventStore } from '../../../libs/eventstore/src/sql/sql-event-store';
import { AppModule } from './app.module';
import { IdentityService } from './identity/identity.service';
import { Platform, type PlatformOptions } from '../../../libs/runtime/src/platform';
import { CONTEXT_MODULES } from '../../../contexts/registrations';
import { seedCatalog } from '../../../sagas/catalog-sync/catalog-sync';
import { asOfHook } from './common/as-of';
import { registerConsole } from './console/console-assets';

export interface RunningServer {
  url: string;
  httpUrl?: string;
  platform: Platform;
  identity: IdentityService;
  http: HttpApp;
  bootstrapFile: string;
  close(): Promise<void>;
}

/** Assembles engines, identity and the HTTP surface; used by main.ts, the tests and the bench. */
export async function startServer(config: AppConfig, logger: pino.Logger, options: PlatformOptions = {}): Promise<RunningServer> {
  const platform = await Platform.open(config, logger, CONTEXT_MODULES, options);
  await platform.start();
  await seedCatalog(platform);
  const identity = new IdentityService(platform);
  const boot = await identity.bootstrap();
  if (boot.created) logger.info({ file: boot.file }, 'first start: project, API key and platform-admin key written to bootstrap file (mode 0600)');

  let redis: Redis | null = null;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
    redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
    // Commands fail fast while disconnected (no offline queue), so give the first connect a moment.
    const r = redis;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      r.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  const rateLimiter = new RateLimiter(
    redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore(),
    { perProject: config.rateLimits.perProject, perKey: config.rateLimits.perKey, perIp: config.rateLimits.perIp },
    (err) => logger.warn({ err: String(err) }, 'rate-limit store unavailable'),
    () => platform.clock.now(),
  );
  // Idempotency records live with the events, so that a key and its write survive a crash together
  // (DECISIONS 5): in the event store's database where it is SQL (PostgreSQL, PGlite).
  // With Redis (the server profile), answered keys are cached there in front of the SQL records, so a
  // replay reads no database; the SQL record stays the truth and a Redis outage only costs that read.
  const seal = CredentialCipher.fromConfig(config.dataDir, config.credentialsKey);
  const sqlIdempotency = platform.events instanceof SqlEventStore
    ? new SqlIdempotencyStore(platform.events.sqlClient, { schema: platform.events.schemaName, seal }).start()
    : null;
  let cacheWarnedAt = 0;
  const cacheError = (err: unknown) => {
    if (Date.now() - cacheWarnedAt < 10_000) return;
    cacheWarnedAt = Date.now();
    logger.warn({ err: String(err) }, 'idempotency cache (redis) unavailable; answering from the SQL records');
  };
  // EventStoreDB has no tables: the records are streams of their own there, the write's events
  // carrying the key in their metadata (libs/http/src/event-stream-idempotency-store.ts).
  const durableIdempotency = sqlIdempotency ?? new EventStreamIdempotencyStore(platform.events, { seal }).start();
  const idempotencyStore: IdempotencyStore = redis ? new CachedIdempotencyStore(durableIdempotency, redis, { seal, onError: cacheError }) : durableIdempotency;

  const http = await createHttpApp(AppModule.forRoot(platform, identity, redis ? () => redis!.ping() : null), {
    port: config.port,
    host: config.host,
    dataDir: config.dataDir,
    tls: config.tls ? { cert: fs.readFileSync(config.tls.certFile, 'utf8'), key: fs.readFileSync(config.tls.keyFile, 'utf8') } : undefined,
    httpPort: config.httpPort,
    trustProxy: config.trustProxy,
    logger,
    rateLimiter,
    idempotencyStore,
    authenticator: identity,
    openApi: { serverUrl: config.publicUrl },
  });
  // `?asOf=` on every single-resource GET (DECISIONS 20): after the pipeline's hooks, around the handler.
  http.fastify.addHook('preHandler', asOfHook);
  // The web console (apps/console, bundled by `npm run build:console`): static files under /console.
  registerConsole(http.fastify, { gatewayUrl: config.console.gatewayUrl, jwt: config.jwt !== null });
  const { url, httpUrl } = await http.listen();
  return {
    url,
    httpUrl,
    platform,
    identity,
    http,
    bootstrapFile: boot.file,
    async close() {
      await http.close();
      durableIdempotency.stop();
      await platform.close();
      redis?.disconnect();
    },
  };
}
