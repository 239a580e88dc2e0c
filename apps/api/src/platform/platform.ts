import * as fs from 'node:fs';
import * as path from 'node:path';
import type pino from 'pino';
import { Gauge, Histogram } from 'prom-client';
import type { AppConfig } from '../../../../libs/config/src/config';
import type { EventStore } from '../../../../libs/eventstore/src/event-store.port';
import { SqlEventStore } from '../../../../libs/eventstore/src/sql/sql-event-store';
import { EsdbEventStore } from '../../../../libs/eventstore/src/esdb/esdb-event-store';
import type { ReadDoc, ReadStore } from '../../../../libs/readstore/src/read-store.port';
import { MemoryReadStore } from '../../../../libs/readstore/src/memory-read-store';
import { MongoReadStore } from '../../../../libs/readstore/src/mongo-read-store';
import { ReadStoreCheckpointStore } from '../../../../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../../../../libs/subscriptions/src/projection-engine';
import { SubscriptionRunner } from '../../../../libs/subscriptions/src/subscription-runner';
import { DocumentProjector, foldDocument, projectorName, type DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { KafkaRelay } from '../../../../libs/messaging/src/kafka-relay';
import { metricsRegistry } from '../../../../libs/http/src/metrics';
import { apiKeysProjection } from '../../../../projections/api-keys/api-keys.projection';
import { instancesProjection, type InstanceDoc } from '../../../../projections/instances/instances.projection';
import { jobsProjection, type JobDoc } from '../../../../projections/jobs/jobs.projection';
import { JobDispatcher } from '../../../../sagas/job-executor/job-dispatcher';
import { JobExecutor } from '../../../../sagas/job-executor/job-executor';
import { InstanceOperations } from '../../../../sagas/instance-operations/instance-operations';
import { ServerOperations } from '../../../../sagas/server-operations/server-operations';
import { serversProjection } from '../../../../projections/servers/servers.projection';
import { backupsProjection } from '../../../../projections/backups/backups.projection';
import { AutoStopper } from '../../../../sagas/auto-stop/auto-stopper';
import { DriverRegistry } from './driver-registry';
import { BatchFanout, instanceBatchRequester, serverBatchRequester } from '../../../../sagas/batch-fanout/batch-fanout';
import { batchesProjection } from '../../../../projections/batches/batches.projection';
import { projectsProjection } from '../../../../projections/projects/projects.projection';
import { providersFeature } from '../providers/providers.feature';
import { catalogFeature } from '../catalog/catalog.feature';
import { sshKeysFeature } from '../ssh-keys/ssh-keys.feature';
import { templatesFeature } from '../templates/templates.feature';

/** Every read model the API serves. */
export const PROJECTIONS: DocumentProjection[] = [apiKeysProjection as unknown as DocumentProjection, projectsProjection as unknown as DocumentProjection, ...providersFeature.projections, ...catalogFeature.projections, ...sshKeysFeature.projections, ...templatesFeature.projections, instancesProjection as unknown as DocumentProjection, jobsProjection as unknown as DocumentProjection, batchesProjection as unknown as DocumentProjection, serversProjection as unknown as DocumentProjection, backupsProjection as unknown as DocumentProjection];

const appendLatency = new Histogram({
  name: 'eventstore_append_duration_seconds',
  help: 'Event store group-commit latency per transaction',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [metricsRegistry],
});

/** Platforms of this process whose subscriptions the lag gauges report (tests run several). */
const livePlatforms = new Set<Platform>();

async function lagStatuses() {
  const out = [];
  for (const p of livePlatforms) for (const r of p.allRunners()) out.push(await r.status());
  return out;
}

new Gauge({
  name: 'subscription_lag_events',
  help: 'Events between the event store head and the subscription checkpoint (projections, sagas, relays)',
  labelNames: ['subscription'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const s of await lagStatuses()) this.set({ subscription: s.name }, s.lagEvents);
  },
});

new Gauge({
  name: 'subscription_lag_milliseconds',
  help: 'Age of the newest handled event while a subscription is behind (0 when caught up)',
  labelNames: ['subscription'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const s of await lagStatuses()) this.set({ subscription: s.name }, s.lagMs);
  },
});

/**
 * The engines behind the API: event store, read store, projections, relays. One object so the HTTP
 * layer, the worker and the tests assemble the same thing.
 */
export class Platform {
  readonly projections: ProjectionEngine;
  private readonly relays: SubscriptionRunner[] = [];
  /** Process managers fed by checkpointed subscriptions (e.g. the job dispatcher). */
  private readonly sagas: SubscriptionRunner[] = [];
  /** Pollers over due-time indexes (job attempts and retries, auto-stop). */
  private readonly workers: Array<{ start(): void; stop(): Promise<void> }> = [];
  private kafkaRelay: KafkaRelay | null = null;
  private started = false;
  readonly drivers: DriverRegistry;
  /** Runs job attempts; features register the handler of their resource type. */
  readonly executor: JobExecutor;
  /** Fans batches out; features register the requester of their resource type. */
  readonly batchFanout: BatchFanout;

  private constructor(
    readonly config: AppConfig,
    readonly logger: pino.Logger,
    readonly events: EventStore,
    readonly reads: ReadStore,
  ) {
    const checkpoints = new ReadStoreCheckpointStore(reads);
    this.projections = new ProjectionEngine(events, reads, checkpoints, PROJECTIONS, (name, err) =>
      logger.error({ err, subscription: name }, 'subscription batch failed; retrying'),
    );
    this.drivers = new DriverRegistry(config.simulatorLatency);
    const onSagaError = (name: string, err: unknown) => logger.error({ err: String(err), subscription: name }, 'saga batch failed; retrying');
    this.sagas.push(new SubscriptionRunner(events, checkpoints, new JobDispatcher(events), onSagaError));
    this.batchFanout = new BatchFanout(events, { instances: instanceBatchRequester(events), servers: serverBatchRequester(events) });
    this.sagas.push(new SubscriptionRunner(events, checkpoints, this.batchFanout, onSagaError));
    const jobs = () => this.projections.collection(jobsProjection);
    const executor = new JobExecutor(events, jobs, { instance: new InstanceOperations(events, (kind) => this.drivers.get(kind)), server: new ServerOperations(events, (kind) => this.drivers.get(kind)) }, logger, {
      concurrency: config.jobConcurrency,
      ready: async () => {
        const head = await events.headPosition();
        if (!(await this.projections.runner('jobs').waitFor(head, 300_000))) throw new Error(`jobs projection still behind position ${head} after 300 s`);
      },
    });
    this.workers.push(executor);
    this.executor = executor;
    this.workers.push(new AutoStopper(() => this.projections.collection(instancesProjection), (doc) => this.onAutoStop?.(doc), logger, 5000));
    if (config.kafka) {
      this.kafkaRelay = new KafkaRelay({ brokers: config.kafka.brokers, clientId: 'cloud-api', topicPrefix: config.kafka.topicPrefix, logger });
      this.relays.push(
        new SubscriptionRunner(events, checkpoints, this.kafkaRelay, (name, err) => logger.warn({ err: String(err), subscription: name }, 'relay batch failed; retrying')),
      );
    }
  }

  static async open(config: AppConfig, logger: pino.Logger): Promise<Platform> {
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    const events = await openEventStore(config);
    const reads = await openReadStore(config);
    return new Platform(config, logger, events, reads);
  }

  /** Starts projections and relays (unless this process is an API-only node of a split deployment). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.config.role === 'api') {
      // Reads still need the physical collection names, resolved from the shared read store.
      for (const p of PROJECTIONS) await this.projections.catalog.resolve(p);
      return;
    }
    await this.projections.start();
    if (this.kafkaRelay) {
      try {
        await this.kafkaRelay.start();
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'Kafka is not reachable yet; the relay retries in the background');
      }
    }
    for (const r of this.relays) await r.start();
    for (const r of this.sagas) await r.start();
    // The executor's change feed and wake-ups follow the jobs projector across rebuilds.
    this.projections.onRunner('jobs', (runner) => {
      if (runner.handler instanceof DocumentProjector) (runner.handler as DocumentProjector<JobDoc>).onWritten((changes) => this.executor.observe(changes));
      runner.onProgress(() => this.executor.poke());
    });
    for (const w of this.workers) w.start();
    this.registerLagMetrics();
  }

  async close(): Promise<void> {
    livePlatforms.delete(this);
    for (const w of this.workers) await w.stop();
    for (const r of this.sagas) await r.stop();
    await this.projections.stop();
    for (const r of this.relays) await r.stop();
    await this.kafkaRelay?.stop().catch(() => undefined);
    await this.events.close();
    await this.reads.close();
  }

  allRunners(): SubscriptionRunner[] {
    return [...this.projections.allRunners(), ...this.sagas, ...this.relays];
  }

  /**
   * A document exactly as of a write just made (position): the write's answer shows what that write
   * did (a create answers `creating` even when its job has already moved the resource on). From the
   * read model when it holds that very version, else folded from the resource's own stream up to the
   * write, so an accepted write never answers 404, stale data or a later state. With no position
   * (nothing appended), the newest projected version.
   */
  async readBack<D extends ReadDoc>(projection: DocumentProjection<D>, stream: string, id: string, position: number | null): Promise<D | null> {
    const collection = await this.projections.collection(projection);
    // This process's projector of the model knows what it just wrote there (no round trip).
    const runner = this.projections.liveRunner(projection.name);
    const held = runner?.handler instanceof DocumentProjector ? (runner.handler as DocumentProjector<D>).peek(collection.name, id) : undefined;
    if (held && (position === null || held._position === position)) return structuredClone(held);
    // What the projector holds is what the collection has, so a held document at another position
    // goes straight to the fold (the stream of a new resource is in the event store's memory tail).
    const doc = held ? null : await collection.get(id);
    if (doc && (position === null || doc._position === position)) return doc;
    const events = await this.events.readStream(stream);
    return foldDocument(projection, position === null ? events : events.filter((e) => e.position <= position), id) ?? doc;
  }

  /** Set by the application: what the auto-stop timer does to an idle instance (a system stop). */
  onAutoStop?: (doc: InstanceDoc) => Promise<void>;

  /**
   * Read-your-writes across a process manager: waits for `saga` to pass `position`, then for the
   * projections to pass the position of the newest event of `stream` (the saga's own write).
   */
  async waitForSaga(sagaName: string, position: number, stream: string, projections: string[]): Promise<boolean> {
    const deadline = Date.now() + this.config.consistencyWaitMs;
    const saga = this.sagas.find((r) => r.name === sagaName);
    if (saga) {
      if (!(await saga.waitFor(position, this.config.consistencyWaitMs))) return false;
    } else {
      const checkpoints = new ReadStoreCheckpointStore(this.reads);
      while ((await checkpoints.load(sagaName)) < position) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    const written = await this.events.readStream(stream);
    const last = written[written.length - 1];
    return last ? this.waitForProjections(last.position, projections) : false;
  }

  /** Readiness of the downstream bus: null when this profile runs without Kafka. */
  async checkQueue(): Promise<boolean | null> {
    if (!this.config.kafka) return null;
    const now = Date.now();
    if (this.queueCheck && now - this.queueCheck.at < 2000) return this.queueCheck.ok;
    const { Kafka, logLevel } = await import('kafkajs');
    // Generous enough for a broker on a loaded machine: a false `down` takes the instance out of rotation.
    const admin = new Kafka({ clientId: 'cloud-api-health', brokers: this.config.kafka.brokers, connectionTimeout: 2500, requestTimeout: 3000, retry: { retries: 1, initialRetryTime: 200 }, logLevel: logLevel.NOTHING }).admin();
    let ok = false;
    try {
      await admin.connect();
      await admin.describeCluster();
      ok = true;
    } catch {
      ok = false;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    this.queueCheck = { at: now, ok };
    return ok;
  }
  private queueCheck: { at: number; ok: boolean } | null = null;

  /**
   * Read-your-writes (DECISIONS §12): resolves once the named projections have passed `position`,
   * or after the bounded wait. Returns whether they caught up.
   */
  async waitForProjections(position: number | null, names: string[]): Promise<boolean> {
    if (position === null) return true;
    const timeout = this.config.consistencyWaitMs;
    if (this.config.role !== 'api') {
      const results = await Promise.all(names.map((n) => this.projections.runner(n).waitFor(position, timeout)));
      return results.every(Boolean);
    }
    // Split deployment: the worker owns the runners; poll their checkpoints in the read store.
    const deadline = Date.now() + timeout;
    const checkpoints = new ReadStoreCheckpointStore(this.reads);
    for (;;) {
      const positions = await Promise.all(
        names.map((n) => {
          const p = PROJECTIONS.find((x) => x.name === n)!;
          return checkpoints.load(projectorName(p));
        }),
      );
      if (positions.every((p) => p >= position)) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private registerLagMetrics(): void {
    livePlatforms.add(this);
  }

}

async function openEventStore(config: AppConfig): Promise<EventStore> {
  const es = config.eventStore;
  let store: EventStore;
  if (es.kind === 'postgres') store = await SqlEventStore.postgres(es.pgUrl!, { schema: es.pgSchema, poolSize: 10 });
  else if (es.kind === 'eventstoredb') store = EsdbEventStore.connect(es.esdbUrl!);
  else store = await SqlEventStore.pglite(path.join(config.dataDir, 'eventstore'), { schema: es.pgSchema });
  if (store instanceof SqlEventStore) store.onAppendCommitted = (_n, ms) => appendLatency.observe(ms / 1000);
  return store;
}

async function openReadStore(config: AppConfig): Promise<ReadStore> {
  if (config.readStore.kind === 'mongodb') return MongoReadStore.connect(config.readStore.mongoUrl!, config.readStore.mongoDb);
  return new MemoryReadStore();
}
