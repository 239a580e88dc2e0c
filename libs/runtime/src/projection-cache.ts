import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import type { PortsOf } from './ports';
import { inAsOf } from './as-of-context';

/**
 * Small read-through cache of one read model's documents for lookups made on every request (the API
 * key of each call, the provider and catalog of each create). Entries are dropped at once when this
 * process's projector of the model applies a change (a write answers only after that), and after
 * `ttlMs` in any case: a process that does not run the projections (ROLE=api) sees another node's
 * change (a revoked key, a disabled provider) within `ttlMs`. Values are shared: do not mutate.
 */
export class ProjectionCache<V> {
  private readonly entries = new Map<string, V | null>();
  private at = Date.now();
  private generation = 0;
  private listeningTo: unknown = null;

  constructor(
    private readonly ports: PortsOf<'projections'>,
    private readonly projection: DocumentProjection,
    private readonly options: { ttlMs?: number; maxEntries?: number; cacheMisses?: boolean } = {},
  ) {}

  /** The cached value for `key`, else `load()`'s (kept only if no change arrived while it loaded). */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    // A request as of an instant reads the past: neither answered from nor kept in a cache of the present.
    if (inAsOf()) return load();
    this.listen();
    if (Date.now() - this.at > (this.options.ttlMs ?? 1000)) this.clear();
    if (this.entries.has(key)) return this.entries.get(key)!;
    // Concurrent misses of one key (every request in flight when an entry expires) share one load.
    const generation = this.generation;
    const flightKey = `${generation}:${key}`;
    let flight = this.loading.get(flightKey);
    if (!flight) {
      flight = load().finally(() => this.loading.delete(flightKey));
      this.loading.set(flightKey, flight);
    }
    const value = await flight;
    if (generation === this.generation && (value !== null || this.options.cacheMisses)) {
      if (this.entries.size >= (this.options.maxEntries ?? 10_000)) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  private readonly loading = new Map<string, Promise<V | null>>();

  private clear(): void {
    this.generation++;
    this.entries.clear();
    this.at = Date.now();
  }

  /** Follows this process's runner of the model (a rebuild replaces it); none in a ROLE=api process. */
  private listen(): void {
    const runner = this.ports.projections.liveRunner(this.projection.name);
    if (!runner || runner === this.listeningTo) return;
    const current = runner;
    runner.onChange(() => {
      if (this.listeningTo === current) this.clear();
    });
    this.listeningTo = runner;
    this.clear();
  }

  /** One cache per platform and name (services are created per application, platforms per process). */
  static for<V>(ports: PortsOf<'projections'>, name: string, projection: DocumentProjection, options?: { ttlMs?: number; maxEntries?: number; cacheMisses?: boolean }): ProjectionCache<V> {
    let byName = caches.get(ports);
    if (!byName) caches.set(ports, (byName = new Map()));
    let cache = byName.get(name) as ProjectionCache<V> | undefined;
    if (!cache) byName.set(name, (cache = new ProjectionCache<V>(ports, projection, options)));
    return cache;
  }
}

const caches = new WeakMap<object, Map<string, ProjectionCache<unknown>>>();
