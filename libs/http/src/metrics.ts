/** prom-client registry shared by the service, with the HTTP request metrics. */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const metricsRegistry = new Registry();

export const httpRequestsTotal = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration in seconds by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

let defaultsOn = false;
/**
 * The process's own figures (RSS, heap, event-loop delay, GC, open handles) beside the request
 * metrics: what an operator, and the soak (bench/soak.ts), watch for growth. Called by the process
 * entries (apps/api/src/main.ts, runMain), never by startServer: prom-client's GC observer and
 * event-loop monitor are process-wide and cannot be stopped, so a server started in-process (the
 * tests, the benches) would leave them holding everything it loaded, one copy per start (about 60 MB
 * per jest test file, enough to push a worker's heap to its limit late in a full run).
 */
export function enableDefaultMetrics(): void {
  if (!defaultsOn) collectDefaultMetrics({ register: metricsRegistry });
  defaultsOn = true;
}

/** `route` is the route pattern (`/v1/instances/:id`), or 'unmatched' for 404s. */
export function recordHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const labels = { method, route: route ?? 'unmatched', status: String(status) };
  httpRequestsTotal.inc(labels);
  httpRequestDuration.observe(labels, seconds);
}

export const metricsContentType = (): string => metricsRegistry.contentType;
export function renderMetrics(): Promise<string> {
  return metricsRegistry.metrics();
}
