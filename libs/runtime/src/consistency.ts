import type { EventStore } from '../../eventstore/src/event-store.port';
import type { ReadDoc, ReadStore } from '../../readstore/src/read-store.port';
import { ReadStoreCheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { DocumentProjector, foldDocument, projectorName, type DocumentProjection } from '../../subscriptions/src/document-projection';
import type { ProjectionEngine } from '../../subscriptions/src/projection-engine';
import type { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';
import type { CheckpointWatch } from './checkpoint-signals';

export interface ConsistencyOptions {
  /** The bounded wait of read-your-writes (DECISIONS 12). */
  waitMs: number;
  /** An API node of a split deployment: the runners live in the worker, so checkpoints are polled. */
  remote: boolean;
  /** On PostgreSQL, the remote checkpoints are heard of as the worker saves them (no polling). */
  watch?: CheckpointWatch | null;
  projections: DocumentProjection[];
  /** This process's saga runner of that name, if it runs one. */
  saga: (name: string) => SubscriptionRunner | undefined;
}

/** Read-your-writes (DECISIONS 12): waiting for read models and answering a write as of itself. */
export class Consistency {
  private readonly checkpoints: ReadStoreCheckpointStore;

  constructor(
    private readonly events: EventStore,
    reads: ReadStore,
    private readonly projections: ProjectionEngine,
    private readonly options: ConsistencyOptions,
  ) {
    this.checkpoints = new ReadStoreCheckpointStore(reads);
  }

  /**
   * Resolves once the named projections have passed `position`, or after the bounded wait. Returns
   * whether they caught up.
   */
  async waitForProjections(position: number | null, names: string[]): Promise<boolean> {
    if (position === null) return true;
    const timeout = this.options.waitMs;
    if (!this.options.remote) {
      const results = await Promise.all(names.map((n) => this.projections.runner(n).waitFor(position, timeout)));
      return results.every(Boolean);
    }
    const subscriptions = names.map((n) => projectorName(this.options.projections.find((x) => x.name === n)!));
    return this.pollCheckpoints(subscriptions, position, Date.now() + timeout);
  }

  /**
   * Read-your-writes across a process manager: waits for `saga` to pass `position`, then for the
   * projections to pass the position of the newest event of `stream` (the saga's own write).
   */
  async waitForSaga(sagaName: string, position: number, stream: string, projections: string[]): Promise<boolean> {
    const saga = this.options.saga(sagaName);
    const caughtUp = saga ? await saga.waitFor(position, this.options.waitMs) : await this.pollCheckpoints([sagaName], position, Date.now() + this.options.waitMs);
    if (!caughtUp) return false;
    const written = await this.events.readStream(stream);
    const last = written[written.length - 1];
    return last ? this.waitForProjections(last.position, projections) : false;
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

  /** Split deployment: the worker owns the runners; their checkpoints are in the shared read store. */
  private async pollCheckpoints(subscriptions: string[], position: number, deadline: number): Promise<boolean> {
    if (this.options.watch) return this.options.watch.waitFor(subscriptions, position, Math.max(0, deadline - Date.now()));
    // EventStoreDB has no signal between processes: the checkpoints are read on a short timer.
    for (;;) {
      const positions = await Promise.all(subscriptions.map((s) => this.checkpoints.load(s)));
      if (positions.every((p) => p >= position)) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
