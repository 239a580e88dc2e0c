import * as fs from 'node:fs';
import Redis from 'ioredis';
import type pino from 'pino';
import type { AppConfig } from '../../../libs/config/src/config';
import type { Authenticator } from '../../../libs/http/src/auth';
import { MemoryRateLimitStore, RedisRateLimitStore } from '../../../libs/http/src/rate-limit';
import { loadOrCreateSelfSigned } from '../../../libs/http/src/tls';
import type { KeyHasher } from '../../../libs/runtime/src/key-hasher';
import type { Ports } from '../../../libs/runtime/src/ports';
import { createGateway } from './gateway';

/**
 * The gateway on a running platform (the API's, in one process; or its own in a split deployment):
 * TLS like the API (the configured pair, else the self-signed pair of the data dir), per-minute
 * counters in Redis where one is configured (exact across gateway processes), else in memory.
 */
export async function startGateway(config: AppConfig, ports: Ports, logger: pino.Logger, cloudAuth: Authenticator, hasher: KeyHasher) {
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 }) : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'gateway: redis connection error'));
  const tls = config.tls ? { cert: fs.readFileSync(config.tls.certFile, 'utf8'), key: fs.readFileSync(config.tls.keyFile, 'utf8') } : loadOrCreateSelfSigned(config.dataDir);
  const gateway = await createGateway({
    ports,
    logger,
    cloudAuth,
    hasher,
    rateLimits: redis ? new RedisRateLimitStore(redis, 'gw:rl:') : new MemoryRateLimitStore(),
    tls,
    host: config.host,
    port: config.gatewayPort,
    consoleOrigins: config.console.origin ? [config.console.origin] : [],
  });
  return {
    url: gateway.url,
    async close() {
      await gateway.close();
      redis?.disconnect();
    },
  };
}
