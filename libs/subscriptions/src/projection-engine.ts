import type { EventStore } from '../../eventstore/src/event-store.port';
import type { ReadDoc, ReadStore } from '../../readstore/src/read-store.port';
import { MemoryReadStore } from '../../readstore/src/memory-read-store';
import type { CheckpointStore } from './checkpoint-store';
import { DocumentProjection, DocumentProjector, ProjectionCatalog } from './document-projection';
import { SubscriptionRunner } from './subscription-runner';

export interface RebuildReport {
  projection: string;
  collection: string;
  events: number;
  ms: number;
  eventsPerSec: number;
}

/** Runs every projection from its checkpoint, and rebuilds one into a fresh collection without downtime. */
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
    for (const p of this.projections) {
      const physical = await this.catalog.resolve(p);
      await this.store.collection(physical).ensureIndexes(p.indexes ?? []);
      const runner = this.runnerFor(p);
      this.runners.set(p.name, runner);
      await runner.start();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
  }

  runner(name: string): SubscriptionRunner {
    const r = this.runners.get(name);
    if (!r) throw new Error(`Unknown projection ${name}`);
    return r;
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
   * Replays the whole log into a fresh collection while the live one keeps serving, then stops the
   * live runner for the last few events, points reads at the new collection and resumes.
   */
  async rebuild(name: string, options: { batchSize?: number } = {}): Promise<RebuildReport> {
    const p = this.projections.find((x) => x.name === name);
    if (!p) throw new Error(`Unknown projection ${name}`);
    const physical = ProjectionCatalog.physicalName(p, `_r${Date.now().toString(36)}`);
    const target = this.store.collection(physical);
    await target.drop();
    await target.ensureIndexes(p.indexes ?? []);
    // A server read store is slow at per-document replaces but fast at bulk inserts: fold the log
    // into memory first, then insert every document once. The memory store folds in place.
    const staging = this.store.kind === 'memory' ? null : new MemoryReadStore();
    const stagingStore = staging ?? this.store;
    const projector = new DocumentProjector(p, stagingStore, async () => physical, `rebuild:${physical}`, options.batchSize ?? 5000);

    const started = performance.now();
    let position = 0;
    let count = 0;
    const catchUp = async (via: DocumentProjector<ReadDoc>) => {
      for (;;) {
        const batch = await this.events.readAll({ fromPosition: position, maxCount: via.batchSize });
        if (batch.length === 0) return;
        await via.handle(batch);
        position = batch[batch.length - 1].position;
        count += batch.length;
      }
    };
    await catchUp(projector);
    if (staging) {
      const { items } = await staging.collection(physical).find({});
      for (let i = 0; i < items.length; i += 5000) {
        await target.write(items.slice(i, i + 5000).map((doc) => ({ kind: 'put' as const, doc, isNew: true })));
      }
      await staging.close();
    }
    const direct = new DocumentProjector(p, this.store, async () => physical, `rebuild:${physical}`, options.batchSize ?? 5000);
    const live = this.runners.get(name);
    await live?.stop();
    await catchUp(direct);
    const old = await this.catalog.resolve(p);
    await this.catalog.switchTo(p, physical);
    const liveName = live?.handler.name ?? `projection:${p.name}:v${p.version}`;
    await this.checkpoints.save(liveName, position);
    const runner = this.runnerFor(p);
    this.runners.set(name, runner);
    await runner.start();
    if (old !== physical) await this.store.collection(old).drop();
    const ms = performance.now() - started;
    return { projection: name, collection: physical, events: count, ms, eventsPerSec: count / (ms / 1000) };
  }
}
