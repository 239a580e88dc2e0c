import type { EventStore } from '../../eventstore/src/event-store.port';
import type { ReadDoc, ReadStore } from '../../readstore/src/read-store.port';
import type { CheckpointStore } from './checkpoint-store';
import { DocumentProjection, DocumentProjector, ProjectionCatalog, projectorName } from './document-projection';
import { WriteBehindFold } from './write-behind-fold';
import { SubscriptionRunner } from './subscription-runner';

export interface RebuildReport {
  projection: string;
  collection: string;
  events: number;
  ms: number;
  eventsPerSec: number;
}

/** Runs every projection from its checkpoint, and rebuilds one into a fresh collection without downtime. */
/** How long after a resolved name expires a switched-away collection is kept, for reads already under way. */
const RETIRE_GRACE_MS = 1000;

export class ProjectionEngine {
  readonly catalog: ProjectionCatalog;
  private readonly runners = new Map<string, SubscriptionRunner>();

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly checkpoints: CheckpointStore,
    readonly projections: DocumentProjection[],
    private readonly onError: (name: string, err: unknown) => void = () => undefined,
  ) {
    this.catalog = new ProjectionCatalog(store);
  }

  async start(): Promise<void> {
    const upgraded: DocumentProjection[] = [];
    for (const p of this.projections) {
      const stored = await this.catalog.storedVersion(p);
      if (stored !== null && stored !== p.version) {
        upgraded.push(p);
        continue;
      }
      const physical = await this.catalog.resolve(p);
      await this.store.collection(physical).ensureIndexes(p.indexes ?? []);
      const runner = this.runnerFor(p);
      this.setRunner(p.name, runner);
      await runner.start();
    }
    // A model whose version changed (its document shape or rules did) is rebuilt into a fresh
    // collection in one pass while reads stay on its previous collection, then switched to and run
    // live: replaying it live into an empty collection answered 404s and short lists until it caught up.
    if (upgraded.length > 0) await this.rebuildAll(upgraded.map((p) => p.name));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
    // No reader of this process is left; another process re-resolves within the TTL.
    await this.retired({ now: true });
  }

  runner(name: string): SubscriptionRunner {
    const r = this.runners.get(name);
    if (!r) throw new Error(`Unknown projection ${name}`);
    return r;
  }

  private readonly runnerListeners = new Map<string, Array<(runner: SubscriptionRunner) => void>>();

  /**
   * Calls `attach` with this process's live runner of a read model now (if it runs one) and with each
   * runner that replaces it (a rebuild's switch-over starts a new one), so in-process listeners
   * (the job executor's change feed and wake-ups) survive a rebuild.
   */
  onRunner(name: string, attach: (runner: SubscriptionRunner) => void): void {
    const list = this.runnerListeners.get(name) ?? [];
    list.push(attach);
    this.runnerListeners.set(name, list);
    const current = this.runners.get(name);
    if (current) attach(current);
  }

  private setRunner(name: string, runner: SubscriptionRunner): void {
    this.runners.set(name, runner);
    for (const attach of this.runnerListeners.get(name) ?? []) attach(runner);
  }

  /** This process's live runner of a read model, if it runs one (a ROLE=api process runs none). */
  liveRunner(name: string): SubscriptionRunner | undefined {
    return this.runners.get(name);
  }

  allRunners(): SubscriptionRunner[] {
    return [...this.runners.values()];
  }

  async collection<D extends ReadDoc>(p: DocumentProjection<D>) {
    return this.catalog.collectionFor(p);
  }

  private runnerFor(p: DocumentProjection, checkpointName?: string): SubscriptionRunner {
    const projector = new DocumentProjector(p, this.store, () => this.catalog.resolve(p), checkpointName);
    return new SubscriptionRunner(this.events, this.checkpoints, projector, this.onError);
  }

  /**
   * Rebuilds several read models from one pass over the log (each `rebuild` alone re-reads the whole
   * log). Every event batch is folded in memory for each model that handles it; documents beyond the
   * memory bound (the least recently touched, see WriteBehindFold) are bulk-written into the fresh
   * collections while the pass goes on, the rest at its end. Indexes are built after the load (an
   * index built over loaded rows is cheaper than one maintained row by row), then each model is
   * switched over as `rebuild` does. Returns one report per model; `ms` is the shared wall time.
   */
  async rebuildAll(
    names: string[] = this.projections.map((p) => p.name),
    options: { batchSize?: number; memoryDocs?: number; onProgress?: (position: number) => void } = {},
  ): Promise<{ events: number; ms: number; eventsPerSec: number; passMs: number; insertMs: number; indexMs: number; projections: Array<RebuildReport & { docs: number; insertMs: number; reloaded: number }> }> {
    const batchSize = options.batchSize ?? 5000;
    const chosen = names.map((name) => {
      const p = this.projections.find((x) => x.name === name);
      if (!p) throw new Error(`Unknown projection ${name}`);
      return p;
    });
    const started = performance.now();
    const suffix = `_r${Date.now().toString(36)}`;
    const plans = chosen.map((p) => ({ p, physical: ProjectionCatalog.physicalName(p, suffix) }));
    for (const plan of plans) await this.store.collection(plan.physical).drop();
    const fold = new WriteBehindFold(
      plans.map((plan) => ({ projection: plan.p, collection: this.store.collection(plan.physical) })),
      // An in-memory store holds every document anyway: nothing to bound, no I/O to overlap.
      { memoryDocs: options.memoryDocs ?? (this.store.kind === 'memory' ? Number.POSITIVE_INFINITY : undefined) },
    );
    let position = 0;
    let count = 0;
    // The next batch is read while this one folds.
    let pending = this.events.readAll({ fromPosition: 0, maxCount: batchSize });
    for (;;) {
      const batch = await pending;
      if (batch.length === 0) break;
      pending = this.events.readAll({ fromPosition: batch[batch.length - 1].position, maxCount: batchSize });
      await fold.apply(batch);
      position = batch[batch.length - 1].position;
      count += batch.length;
      options.onProgress?.(position);
    }
    const passMs = performance.now() - started;
    const reports = await fold.finish();
    const indexStarted = performance.now();
    // Index builds of different collections run side by side (PostgreSQL builds each in one backend).
    const toIndex = [...plans];
    const indexer = async () => {
      for (let plan = toIndex.shift(); plan; plan = toIndex.shift()) await this.store.collection(plan.physical).ensureIndexes(plan.p.indexes ?? []);
    };
    await Promise.all([indexer(), indexer()]);
    const indexMs = performance.now() - indexStarted;
    const insertMs = performance.now() - started - passMs;
    for (const plan of plans) await this.switchOver(plan.p, plan.physical, position, batchSize);
    const ms = performance.now() - started;
    // Done when the old collections are gone (a few seconds after the switch: reads move first; not
    // part of the rebuild's time).
    await this.retired();
    return {
      events: count,
      ms,
      eventsPerSec: count / (ms / 1000),
      passMs,
      insertMs,
      indexMs,
      projections: plans.map((plan, i) => ({ projection: plan.p.name, collection: plan.physical, events: count, ms, eventsPerSec: count / (ms / 1000), docs: reports[i].docs, insertMs: reports[i].writeMs, reloaded: reports[i].reloaded })),
    };
  }

  /** Stops the live runner, applies what was appended since `position`, switches reads and resumes. */
  private async switchOver(p: DocumentProjection, physical: string, position: number, batchSize: number): Promise<number> {
    const direct = new DocumentProjector(p, this.store, async () => physical, `rebuild:${physical}`, batchSize);
    const live = this.runners.get(p.name);
    await live?.stop();
    let count = 0;
    for (;;) {
      const batch = await this.events.readAll({ fromPosition: position, maxCount: batchSize });
      if (batch.length === 0) break;
      await direct.handle(batch);
      position = batch[batch.length - 1].position;
      count += batch.length;
    }
    const old = await this.catalog.resolve(p);
    await this.catalog.switchTo(p, physical);
    const liveName = live?.handler.name ?? projectorName(p);
    await this.checkpoints.save(liveName, position);
    const runner = this.runnerFor(p);
    this.setRunner(p.name, runner);
    await runner.start();
    if (old !== physical) this.retire(old);
    return count;
  }

  /** Collections switched away from, dropped once no reader can still resolve to them. */
  private readonly retiring = new Map<string, { timer: NodeJS.Timeout; dropped: Promise<void>; now: () => void }>();

  /**
   * Drops a collection reads were switched away from, once every name resolved before the switch has
   * expired (the catalog's TTL, in this process and in a split deployment's API nodes) plus a grace
   * for reads in flight: dropping it at once failed (FerretDB: "relation does not exist") or missed
   * (MongoDB: null) a read that had resolved the old name just before the switch.
   */
  private retire(physical: string): void {
    let now = () => undefined as void;
    const dropped = new Promise<void>((resolve) => (now = resolve)).then(async () => {
      clearTimeout(entry.timer);
      await this.store.collection(physical).drop().catch((err) => this.onError(`drop ${physical}`, err));
      this.retiring.delete(physical);
    });
    const entry = { timer: setTimeout(() => now(), this.catalog.ttlMs + RETIRE_GRACE_MS), dropped, now };
    entry.timer.unref?.();
    this.retiring.set(physical, entry);
  }

  /** Resolves once every collection switched away from so far is dropped (`now`: without waiting out the TTL). */
  async retired(options: { now?: boolean } = {}): Promise<void> {
    const pending = [...this.retiring.values()];
    if (options.now) for (const r of pending) r.now();
    await Promise.all(pending.map((r) => r.dropped));
  }

  /**
   * Replays the whole log into a fresh collection while the live one keeps serving, then stops the
   * live runner for the last few events, points reads at the new collection and resumes.
   */
  async rebuild(name: string, options: { batchSize?: number; onProgress?: (position: number) => void } = {}): Promise<RebuildReport> {
    const r = await this.rebuildAll([name], options);
    return { projection: name, collection: r.projections[0]!.collection, events: r.events, ms: r.ms, eventsPerSec: r.eventsPerSec };
  }
}
