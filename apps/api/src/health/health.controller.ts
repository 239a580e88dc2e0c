import { Controller, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute, route } from '../../../../libs/http/src/route';
import { metricsRegistry } from '../../../../libs/http/src/metrics';
import { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM, REDIS_PING } from '../tokens';

type Check = 'ok' | 'down' | 'disabled';

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

async function check(probe: (() => Promise<unknown>) | null, timeoutMs = 2000): Promise<Check> {
  if (!probe) return 'disabled';
  try {
    const r = await withTimeout(probe(), timeoutMs);
    return r === false ? 'down' : 'ok';
  } catch {
    return 'down';
  }
}

/** Spec 4.17 health routes (no credentials needed: load balancers and scrapers call them). */
const healthRoute = route({
  method: 'GET',
  path: '/v1/health/health',
  summary: 'Liveness',
  tag: 'Health',
  auth: 'none',
  rateLimit: false,
  responses: { 200: z.object({ status: z.string(), service: z.string(), uptime: z.number(), timestamp: z.string() }) },
});
const readyRoute = route({
  method: 'GET',
  path: '/v1/health/ready',
  summary: 'Readiness: real checks of the database, redis and queue; 503 when one is down',
  tag: 'Health',
  auth: 'none',
  rateLimit: false,
  responses: {
    200: z.object({ ready: z.boolean(), checks: z.object({ database: z.string(), redis: z.string(), queue: z.string() }), timestamp: z.string() }),
    503: z.object({ ready: z.boolean(), checks: z.object({ database: z.string(), redis: z.string(), queue: z.string() }), timestamp: z.string() }),
  },
});
const metricsRoute = route({
  method: 'GET',
  path: '/v1/health/metrics',
  summary: 'Prometheus metrics: requests, latencies, event-store appends, subscription and relay lag',
  tag: 'Health',
  auth: 'none',
  rateLimit: false,
  responses: { 200: z.string() },
});

@Controller()
export class HealthController {
  private readonly startedAt = Date.now();

  constructor(
    @Inject(PLATFORM) private readonly platform: Platform,
    @Inject(REDIS_PING) private readonly redisPing: (() => Promise<unknown>) | null,
  ) {}

  @ApiRoute(healthRoute)
  health() {
    return { status: 'ok', service: 'cloud-provisioning-api', uptime: (Date.now() - this.startedAt) / 1000, timestamp: new Date().toISOString() };
  }

  @ApiRoute(readyRoute)
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const [database, redis, queue] = await Promise.all([
      check(() => Promise.all([this.platform.events.ping(), this.platform.reads.ping()])),
      check(this.redisPing),
      // The broker check opens a fresh admin connection (cached 2 s): give a loaded broker time.
      check(this.platform.config.kafka ? () => this.platform.relays.checkQueue() : null, 6000),
    ]);
    const ready = ![database, redis, queue].includes('down');
    reply.status(ready ? 200 : 503);
    return { ready, checks: { database, redis, queue }, timestamp: new Date().toISOString() };
  }

  @ApiRoute(metricsRoute)
  async metrics(@Res() reply: FastifyReply) {
    reply.header('content-type', metricsRegistry.contentType).send(await metricsRegistry.metrics());
  }
}
