import type { EventStore, RecordedEvent, Subscription } from '../../eventstore/src/event-store.port';
import type { CheckpointStore } from './checkpoint-store';

export interface SubscriptionHandler {
  /** Unique, stable name: it keys the checkpoint. */
  readonly name: string;
  /**
   * Handles a batch in position order. Must be idempotent: after a crash the batch is handed again.
   * Resolving `false` says the batch changed nothing: its checkpoint may then be saved a little later
   * (see CHECKPOINT_DEFER_MS), since replaying such a batch after a crash costs nothing.
   */
  handle(events: RecordedEvent[]): Promise<void | boolean>;
  batchSize?: number;
  /**
   * Minimum spacing of this handler's checkpoint saves (default CHECKPOINT_MIN_INTERVAL_MS). A handler
   * whose stored checkpoint nobody waits on (the Kafka relay) may save less often: a crash then only
   * hands it a little more of the log again.
   */
  checkpointIntervalMs?: number;
  /** See SubscribeOptions.minBatchIntervalMs (for handlers that nobody waits on). */
  minBatchIntervalMs?: number;
}

export interface SubscriptionStatus {
  name: string;
  position: number;
  lagEvents: number;
  lagMs: number;
  errors: number;
  lastError: string | null;
}

interface Waiter {
  position: number;
  resolve: (caughtUp: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * How long the checkpoint of batches that changed nothing may wait. Every runner sees every batch, and
 * most of a read model's batches hold none of its events: saving each of them was a read-store write
 * per runner per batch. The in-memory position (and so read-your-writes in this process) moves at once.
 */
export const CHECKPOINT_DEFER_MS = 1000;

/** Minimum spacing of one runner's checkpoint saves (positions arriving meanwhile are coalesced). */
export const CHECKPOINT_MIN_INTERVAL_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one handler from its checkpoint: catch-up then live, batch by batch, and saves the checkpoint
 * only after the handler resolved (at-least-once; handlers are idempotent by position).
 */
export class SubscriptionRunner {
  private subscription: Subscription | null = null;
  private current = 0;
  private waiters: Waiter[] = [];
  private errors = 0;
  private lastError: string | null = null;
  private lastEventRecordedAt = 0;
  private head = 0;

  constructor(
    private readonly store: EventStore,
    private readonly checkpoints: CheckpointStore,
    readonly handler: SubscriptionHandler,
    private readonly onError: (name: string, err: unknown) => void = () => undefined,
  ) {}

  get name(): string {
    return this.handler.name;
  }

  get position(): number {
    return this.current;
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    this.stopping = false;
    this.current = await this.checkpoints.load(this.handler.name);
    this.lastSaved = this.current;
    this.wanted = this.current;
    this.subscription = this.store.subscribeToAll({
      fromPosition: this.current,
      batchSize: this.handler.batchSize ?? 500,
      minBatchIntervalMs: this.handler.minBatchIntervalMs,
      onEvents: async (events) => {
        const changed = await this.handler.handle(events);
        const last = events[events.length - 1];
        if (changed === false) this.deferCheckpoint(last.position);
        else {
          this.cancelDeferred();
          this.requestSave(last.position);
        }
        this.current = last.position;
        this.lastEventRecordedAt = Date.parse(last.recordedAt);
        if (changed !== false) for (const listener of this.changeListeners) listener(last.position);
        this.releaseWaiters();
        for (const listener of this.progressListeners) listener(last.position);
      },
      onError: (err) => {
        this.errors++;
        this.lastError = err instanceof Error ? err.message : String(err);
        this.onError(this.handler.name, err);
      },
    });
  }

  private deferred: { position: number; timer: NodeJS.Timeout } | null = null;
  private lastSaved = 0;
  private wanted = 0;
  private saving = false;
  private savesIdle: Array<() => void> = [];
  private lastSaveAt = 0;
  private stopping = false;

  /**
   * Saves the checkpoint in the background, in order, never backwards, coalescing positions requested
   * while a save is in flight (under load one write covers many batches). The handler's writes for
   * `position` are done when this is called, so a crash before the save only replays idempotent
   * batches; waiters in this process are released without waiting for it, and a split deployment's
   * API, which polls the stored checkpoint, sees it one save later.
   */
  private requestSave(position: number): void {
    if (position > this.wanted) this.wanted = position;
    if (this.saving) return;
    this.saving = true;
    void (async () => {
      try {
        while (this.wanted > this.lastSaved) {
          // At most one save per CHECKPOINT_MIN_INTERVAL_MS: under load a runner applies a batch every
          // few ms, and each save is a read-store write.
          const wait = this.lastSaveAt + (this.handler.checkpointIntervalMs ?? CHECKPOINT_MIN_INTERVAL_MS) - Date.now();
          if (wait > 0 && !this.stopping) await sleep(wait);
          const target = this.wanted;
          this.lastSaveAt = Date.now();
          await this.checkpoints.save(this.handler.name, target);
          this.lastSaved = target;
        }
      } catch (err) {
        // Retried by the next batch's request, the deferred flush or stop().
        this.onError(this.handler.name, err);
      } finally {
        this.saving = false;
        for (const resolve of this.savesIdle.splice(0)) resolve();
      }
    })();
  }

  /** Waits for the save in flight, then saves whatever is still unsaved (errors surface here). */
  private async flushSaves(): Promise<void> {
    while (this.saving) await new Promise<void>((resolve) => this.savesIdle.push(resolve));
    if (this.wanted > this.lastSaved) {
      const target = this.wanted;
      await this.checkpoints.save(this.handler.name, target);
      this.lastSaved = Math.max(this.lastSaved, target);
    }
  }

  private deferCheckpoint(position: number): void {
    if (this.deferred) {
      this.deferred.position = position;
      return;
    }
    const timer = setTimeout(() => this.flushDeferred(), CHECKPOINT_DEFER_MS);
    timer.unref?.();
    this.deferred = { position, timer };
  }

  private cancelDeferred(): void {
    if (this.deferred) clearTimeout(this.deferred.timer);
    this.deferred = null;
  }

  private flushDeferred(): void {
    const d = this.deferred;
    this.deferred = null;
    if (!d) return;
    clearTimeout(d.timer);
    this.requestSave(d.position);
  }

  async stop(): Promise<void> {
    const sub = this.subscription;
    this.subscription = null;
    this.stopping = true;
    await sub?.stop();
    this.flushDeferred();
    try {
      await this.flushSaves();
    } catch (err) {
      this.onError(this.handler.name, err);
    }
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(this.current >= w.position);
    }
  }

  private readonly progressListeners: Array<(position: number) => void> = [];
  private readonly changeListeners: Array<(position: number) => void> = [];

  /** Called after each batch the handler applied (not one it said changed nothing), before waiters are released. */
  onChange(listener: (position: number) => void): void {
    this.changeListeners.push(listener);
  }

  /** Called after each handled batch (in-process wake-ups, e.g. the job executor after the jobs projection moved). */
  onProgress(listener: (position: number) => void): void {
    this.progressListeners.push(listener);
  }

  /** Resolves true once the handler has passed `position`, false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.current >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (this.current >= w.position) {
        clearTimeout(w.timer);
        w.resolve(true);
      } else still.push(w);
    }
    this.waiters = still;
  }

  /** Lag against the store's head; `head` is refreshed by the caller (metrics scrape, health). */
  async status(): Promise<SubscriptionStatus> {
    this.head = await this.store.headPosition();
    const lagEvents = Math.max(0, this.head - this.current);
    return {
      name: this.handler.name,
      position: this.current,
      lagEvents,
      lagMs: lagEvents === 0 || this.lastEventRecordedAt === 0 ? 0 : Math.max(0, Date.now() - this.lastEventRecordedAt),
      errors: this.errors,
      lastError: this.lastError,
    };
  }
}
