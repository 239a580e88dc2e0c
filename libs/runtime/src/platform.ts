import type pino from 'pino';
import { Gauge } from 'prom-client';
import type { AppConfig } from '../../config/src/config';
import type { EventStore } from '../../eventstore/src/event-store.port';
import type { ReadDoc, ReadStore } from '../../readstore/src/read-store.port';
import { ReadStoreCheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { CheckpointWatch, checkpointChannel, SignallingCheckpointStore, type Signals } from './checkpoint-signals';
import { ProjectionEngine } from '../../subscriptions/src/projection-engine';
import type { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';
import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import { metricsRegistry } from '../../http/src/metrics';
import { systemClock, type Clock } from './clock';
import { Consistency } from './consistency';
import { openCredentialVault } from './credential-vault';
import type { CredentialVault } from '../../providers/src/credential-vault';
import { DriverRegistry } from './driver-registry';
import { openMailer, type Mailer } from './mailer';
import { openEngines, signalsOf } from './engines';
import { ProcessManagers } from './process-managers';
import { registryOf, type Registry } from './registry';
import type { ContextModule } from './context-module';
import { Relays } from './relays';
import type { Ports } from './ports';
import { Outbox } from './outbox/outbox';

/** Platforms of this process whose subscriptions the lag gauges report (tests run several). */
const livePlatforms = new Set<Platform>();

async function lagStatuses() {
  const out = [];
  for (const p of livePlatforms) for (const r of p.allRunners()) out.push(await r.status());
  return out;
}

for (const [name, help, pick] of [
  ['subscription_lag_events', 'Events between the event store head and the subscription checkpoint (projections, sagas, relays)', (s: { lagEvents: number }) => s.lagEvents],
  ['subscription_lag_milliseconds', 'Age of the newest handled event while a subscription is behind (0 when caught up)', (s: { lagMs: number }) => s.lagMs],
] as const) {
  new Gauge({
    name,
    help,
    labelNames: ['subscription'],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      for (const s of await lagStatuses()) this.set({ subscription: s.name }, pick(s));
    },
  });
}

export interface PlatformOptions {
  clock?: Clock;
}

/**
 * The runtime every app stands on, made of named parts: the engines (`events`, `reads`), the
 * projection engine, read-your-writes (`consistency`), the process managers (sagas, job executor,
 * timers), the downstream relays and the provider drivers. Built from the registered context modules.
 */
export class Platform implements Ports {
  readonly projections: ProjectionEngine;
  readonly consistency: Consistency;
  readonly processes: ProcessManagers;
  readonly relays: Relays;
  readonly drivers: DriverRegistry;
  /** Provider (and later cluster) credentials, encrypted at rest; events carry only references. */
  readonly vault: CredentialVault;
  readonly clock: Clock;
  /** Outbound mail: SMTP (SMTP_URL) or the log. */
  readonly mailer: Mailer;
  /** The modules it runs, and what it read off them. */
  readonly registry: Registry;
  private started = false;
  /** An API node's view of the worker's checkpoints (split deployment on PostgreSQL). */
  private readonly checkpointWatch: CheckpointWatch | null;

  private constructor(
    readonly config: AppConfig,
    readonly logger: pino.Logger,
    readonly events: EventStore,
    readonly reads: ReadStore,
    modules: readonly ContextModule[],
    options: PlatformOptions,
    signalled: { signals: Signals; channel: string; watch: CheckpointWatch | null } | null,
  ) {
    this.registry = registryOf(modules);
    const { projections, jobResources, eventNames } = this.registry;
    this.clock = options.clock ?? systemClock;
    this.checkpointWatch = signalled?.watch ?? null;
    const stored = new ReadStoreCheckpointStore(reads);
    // A worker of a split deployment signals each checkpoint to the API nodes that wait on them.
    const checkpoints = signalled && config.role === 'worker' ? new SignallingCheckpointStore(stored, signalled.signals, signalled.channel) : stored;
    this.projections = new ProjectionEngine(events, reads, checkpoints, projections, (name, err) => logger.error({ err, subscription: name }, 'subscription batch failed; retrying'));
    this.drivers = new DriverRegistry(config.simulatorLatency);
    this.vault = openCredentialVault(config, events);
    this.mailer = openMailer(config, logger);
    this.consistency = new Consistency(events, reads, this.projections, {
      waitMs: config.consistencyWaitMs,
      remote: config.role === 'api',
      watch: this.checkpointWatch,
      projections,
      saga: (name) => this.processes.saga(name),
    });
    const { outboxIndex } = this.registry;
    const outbox = new Outbox({ events, effects: () => this.projections.collection(outboxIndex), clock: this.clock, logger });
    const services = { config, logger, events, projections: this.projections, consistency: this.consistency, drivers: this.drivers, clock: this.clock, mailer: this.mailer, outbox, vault: this.vault, jobResources: Object.values(jobResources), eventNames };
    this.processes = new ProcessManagers(services, checkpoints, modules);
    this.relays = new Relays(config, logger, events, checkpoints, modules.map((m) => m.name));
  }

  static async open(config: AppConfig, logger: pino.Logger, modules: readonly ContextModule[], options: PlatformOptions = {}): Promise<Platform> {
    const { events, reads } = await openEngines(config);
    const signals = signalsOf(events);
    const channel = checkpointChannel(config.eventStore.pgSchema);
    const watch = signals && config.role === 'api' ? await CheckpointWatch.open(signals, channel, new ReadStoreCheckpointStore(reads)) : null;
    return new Platform(config, logger, events, reads, modules, options, signals && { signals, channel, watch });
  }

  /** Starts projections, relays, process managers and timers (unless this process is an API-only node of a split deployment). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.config.role === 'api') {
      // Reads still need the physical collection names, resolved from the shared read store.
      for (const p of this.registry.projections) await this.projections.catalog.resolve(p);
      return;
    }
    await this.projections.start();
    await this.relays.start();
    await this.processes.start();
    livePlatforms.add(this);
  }

  async close(): Promise<void> {
    livePlatforms.delete(this);
    await this.processes.stop();
    await this.projections.stop();
    await this.relays.stop();
    await this.checkpointWatch?.close();
    await this.events.close();
    await this.reads.close();
    this.mailer.close();
  }

  allRunners(): SubscriptionRunner[] {
    return [...this.projections.allRunners(), ...this.processes.sagas, ...this.relays.runners];
  }

  /** The clock's time as an ISO string: the `now` handlers pass into commands. */
  now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  // The read-your-writes calls every write handler makes, kept at hand.
  waitForProjections(position: number | null, names: string[]): Promise<boolean> {
    return this.consistency.waitForProjections(position, names);
  }

  readBack<D extends ReadDoc>(projection: DocumentProjection<D>, stream: string, id: string, position: number | null): Promise<D | null> {
    return this.consistency.readBack(projection, stream, id, position);
  }
}
