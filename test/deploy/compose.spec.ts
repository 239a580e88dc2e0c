import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { configSchema, loadConfig } from '../../libs/config/src/config';

/**
 * docker-compose.yml is not run in CI (no Docker engine there), so what can drift is checked here: each
 * app service starts a process that exists once built, with an environment whose every variable is one
 * the configuration reads and which the configuration accepts, on the engines CI tests (PostgreSQL,
 * MongoDB, Redis, Kafka); EventStoreDB only behind its profile.
 */
const root = join(__dirname, '../..');
const compose = YAML.parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command?: string[]; environment?: Record<string, string>; profiles?: string[]; depends_on?: string[] }>;
};
/** Compose's `${VAR:-default}` with nothing set in the shell. */
const interpolate = (env: Record<string, string>, shell: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, dflt: string) => shell[name] ?? dflt)]));
const apps = ['api', 'worker', 'gateway'] as const;

describe('docker-compose.yml', () => {
  it.each(apps)('%s runs a built entry point of this repository', (name) => {
    const command = compose.services[name]?.command ?? [];
    expect(command[0]).toBe('node');
    const source = command[1].replace(/^dist\//, '').replace(/\.js$/, '.ts');
    expect(existsSync(join(root, source))).toBe(true);
  });

  it.each(apps)('%s has an environment the configuration reads whole and accepts, on the tested engines', (name) => {
    const env = interpolate(compose.services[name].environment ?? {});
    const known = new Set(Object.keys(configSchema.in.shape));
    expect(Object.keys(env).filter((k) => !known.has(k))).toEqual([]);
    const config = loadConfig(env);
    expect(config.profile).toBe('server');
    expect(config.eventStore.kind).toBe('postgres');
    expect(config.readStore.kind).toBe('mongodb');
    expect(config.redisUrl).toMatch(/^redis:\/\/redis:/);
    expect(config.kafka?.brokers).toEqual(['kafka:9092']);
    for (const dep of compose.services[name].depends_on ?? []) expect(Object.keys(compose.services)).toContain(dep);
  });

  it('EventStoreDB is behind the esdb profile, and EVENT_STORE=eventstoredb selects it', () => {
    expect(compose.services.eventstore.profiles).toEqual(['esdb']);
    for (const name of apps) expect(compose.services[name].profiles).toBeUndefined();
    const config = loadConfig(interpolate(compose.services.api.environment ?? {}, { EVENT_STORE: 'eventstoredb' }));
    expect(config.eventStore).toMatchObject({ kind: 'eventstoredb', esdbUrl: 'esdb://eventstore:2113?tls=false' });
  });

  it('the worker and the gateway split the roles: the worker runs subscriptions, the HTTP processes do not', () => {
    const role = (name: string) => loadConfig(interpolate(compose.services[name].environment ?? {})).role;
    expect([role('api'), role('worker'), role('gateway')]).toEqual(['api', 'worker', 'api']);
  });
});
