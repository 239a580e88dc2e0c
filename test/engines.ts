/**
 * Engine URLs for suites that run against real servers. `npm test` starts them with
 * scripts/engines.sh and exports these variables; point them at your own servers to reuse those.
 */
export const ENGINE_DEFAULTS = {
  PG_URL: 'postgres://cloud:cloud@127.0.0.1:55432/cloud',
  REDIS_URL: 'redis://127.0.0.1:56379',
  KAFKA_BROKERS: '127.0.0.1:59092',
  MONGO_URL: 'mongodb://127.0.0.1:57017/cloud',
  /** stripe-mock (scripts/engines.sh `stripe`): the Stripe payment driver's counterpart in tests. */
  STRIPE_MOCK_URL: 'http://127.0.0.1:52111',
} as const;

export type EngineVar = keyof typeof ENGINE_DEFAULTS;

export function requireEngine(name: EngineVar): string {
  const value = process.env[name] ?? ENGINE_DEFAULTS[name];
  if (!value) throw new Error(`${name} is not set: run "bash scripts/engines.sh up" or point ${name} at a server`);
  return value;
}
