import Redis from 'ioredis';
import { REDIS_URL } from './fixtures';

/** Connects to REDIS_URL or throws a message naming it (Redis tests fail, never skip). */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    redis.disconnect();
    throw new Error(`Redis is unreachable at REDIS_URL=${REDIS_URL} (start it with: bash scripts/engines.sh up redis): ${(e as Error).message}`);
  }
  return redis;
}

/** A client pointed at a closed port: every command fails fast. */
export function deadRedis(): Redis {
  return new Redis('redis://127.0.0.1:1', { lazyConnect: true, connectTimeout: 200, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
}
