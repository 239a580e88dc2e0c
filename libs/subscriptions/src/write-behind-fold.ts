import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import type { ReadCollection, ReadDoc, WriteOp } from '../../readstore/src/read-store.port';
import { applyEvent, type DocumentProjection } from './document-projection';

export interface FoldTarget {
  projection: DocumentProjection;
  /** The fresh collection the model is rebuilt into (no other writer). */
  collection: ReadCollection;
}

export interface WriteBehindOptions {
  /** Documents kept in memory across all targets before the least recently touched are written out. */
  memoryDocs?: number;
  /** Documents per write call. */
  chunkSize?: number;
  /** Concurrent write calls. */
  writers?: number;
  /** Chunks waiting for a writer before the fold waits (back-pressure on the log pass). */
  maxQueuedChunks?: number;
}

export interface FoldTargetReport {
  projection: string;
  /** Documents in the collection once everything is written. */
  docs: number;
  /** Summed time of this model's write calls (they overlap the pass and each other). */
  writeMs: number;
  /** Documents read back because an event touched them after they had been written out. */
  reloaded: number;
}

/** A deleted document that was already written out: its delete still has to reach the collection. */
const TOMBSTONE = null;

interface Target {
  projection: DocumentProjection;
  collection: ReadCollection;
  /** In least-recently-touched order (a touch moves an entry to the end). */
  resident: Map<string, ReadDoc | typeof TOMBSTONE>;
  /** Ids with a write issued (never shrinks: a later touch must read the row back first). */
  written: Set<string>;
  live: number;
  writeMs: number;
  reloaded: number;
}

interface Chunk {
  target: Target;
  ops: WriteOp<ReadDoc>[];
}

/**
 * The fold of a rebuild with bounded memory whose writes overlap the log pass.
 *
 * Every event is folded into the in-memory document of each model that handles it. When more than
 * `memoryDocs` documents are held, the least recently touched are written to their collection by a
 * few background writers while the pass goes on (inserts for documents never written, replacements or
 * deletes for documents read back). An event for a document already written out first waits for the
 * writes in flight, then reads the document back, so the collection always ends as the full fold
 * would. With histories whose entities settle (a job completes, an instance is terminated) nearly
 * every document is written once, by a bulk insert, while the pass is still reading the log.
 */
export class WriteBehindFold {
  private readonly targets: Target[];
  private readonly byType = new Map<string, Target[]>();
  private readonly memoryDocs: number;
  private readonly bounded: boolean;
  private readonly chunkSize: number;
  private readonly writers: number;
  private readonly maxQueued: number;
  private resident = 0;
  private readonly queue: Chunk[] = [];
  private active = 0;
  private failure: { err: unknown } | null = null;
  private waiters: Array<() => void> = [];

  constructor(targets: FoldTarget[], options: WriteBehindOptions = {}) {
    this.memoryDocs = Math.max(1, options.memoryDocs ?? 25_000);
    this.bounded = Number.isFinite(this.memoryDocs);
    this.chunkSize = Math.max(1, options.chunkSize ?? 1000);
    this.writers = Math.max(1, options.writers ?? 3);
    this.maxQueued = Math.max(1, options.maxQueuedChunks ?? 6);
    this.targets = targets.map((t) => ({ projection: t.projection, collection: t.collection, resident: new Map(), written: new Set(), live: 0, writeMs: 0, reloaded: 0 }));
    for (const t of this.targets) for (const type of t.projection.eventTypes) this.byType.set(type, [...(this.byType.get(type) ?? []), t]);
  }

  /** Folds one batch of the log (in position order), then writes out what exceeds the memory bound. */
  async apply(batch: RecordedEvent[]): Promise<void> {
    this.throwIfFailed();
    await this.reloadWrittenOut(batch);
    for (const event of batch) {
      const targets = this.byType.get(event.type);
      if (!targets) continue;
      for (const t of targets) {
        const id = t.projection.documentId(event);
        if (!id) continue;
        const held = t.resident.has(id);
        const current = held ? t.resident.get(id)! : null;
        const next = applyEvent(t.projection, current, event, id);
        t.live += (next ? 1 : 0) - (current ? 1 : 0);
        if (next || t.written.has(id)) {
          // A touch moves the entry to the end (least recently touched first); unbounded, order is moot.
          if (held && this.bounded) t.resident.delete(id);
          else if (!held) this.resident++;
          t.resident.set(id, next ?? TOMBSTONE);
        } else if (held) {
          t.resident.delete(id);
          this.resident--;
        }
      }
    }
    if (this.resident > this.memoryDocs) await this.evict(this.resident - Math.floor(this.memoryDocs * 0.75));
  }

  /** Writes out everything still held and waits for every write; returns each model's figures. */
  async finish(): Promise<FoldTargetReport[]> {
    this.throwIfFailed();
    await this.evict(this.resident);
    await this.drain();
    return this.targets.map((t) => ({ projection: t.projection.name, docs: t.live, writeMs: t.writeMs, reloaded: t.reloaded }));
  }

  /** Waits for the writes in flight; used when a batch touches documents already written out. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.active > 0) {
      this.throwIfFailed();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.throwIfFailed();
  }

  private async reloadWrittenOut(batch: RecordedEvent[]): Promise<void> {
    // Nothing written out yet (always so in an unbounded fold): no event can need a read-back.
    if (!this.targets.some((t) => t.written.size > 0)) return;
    const wanted = new Map<Target, Set<string>>();
    for (const event of batch) {
      for (const t of this.byType.get(event.type) ?? []) {
        const id = t.projection.documentId(event);
        if (!id || t.resident.has(id) || !t.written.has(id)) continue;
        const ids = wanted.get(t) ?? new Set<string>();
        ids.add(id);
        wanted.set(t, ids);
      }
    }
    if (wanted.size === 0) return;
    // The rows must be the last ones issued: every write of these ids has to have landed first.
    await this.drain();
    for (const [t, ids] of wanted) {
      const found = new Map((await t.collection.getMany([...ids])).map((d) => [d.id, d] as const));
      for (const id of ids) {
        t.resident.set(id, found.get(id) ?? TOMBSTONE);
        this.resident++;
        t.reloaded++;
      }
    }
  }

  /** Writes out about `count` of the least recently touched documents, spread over the models by share. */
  private async evict(count: number): Promise<void> {
    if (count <= 0 || this.resident === 0) return;
    const total = this.resident;
    for (const t of this.targets) {
      const share = count >= total ? t.resident.size : Math.ceil((t.resident.size / total) * count);
      if (share === 0) continue;
      let ops: WriteOp<ReadDoc>[] = [];
      let taken = 0;
      for (const [id, doc] of t.resident) {
        if (taken >= share) break;
        taken++;
        ops.push(doc ? { kind: 'put', doc, isNew: !t.written.has(id) } : { kind: 'delete', id });
        t.written.add(id);
        if (ops.length >= this.chunkSize) {
          this.queue.push({ target: t, ops });
          ops = [];
        }
      }
      if (ops.length > 0) this.queue.push({ target: t, ops });
      // Map iteration is in insertion order: the first `taken` entries are the ones queued.
      let removed = 0;
      for (const id of t.resident.keys()) {
        if (removed >= taken) break;
        t.resident.delete(id);
        removed++;
      }
      this.resident -= taken;
      this.pump();
    }
    while (this.queue.length > this.maxQueued) {
      this.throwIfFailed();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.throwIfFailed();
  }

  private pump(): void {
    while (this.active < this.writers && this.queue.length > 0 && !this.failure) {
      const chunk = this.queue.shift()!;
      this.active++;
      const started = performance.now();
      chunk.target.collection.write(chunk.ops).then(
        () => {
          chunk.target.writeMs += performance.now() - started;
          this.settle();
        },
        (err: unknown) => {
          this.failure ??= { err };
          this.settle();
        },
      );
    }
  }

  private settle(): void {
    this.active--;
    this.pump();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.err;
  }
}
