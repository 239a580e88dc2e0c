import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import type { ListShape } from '../../readstore/src/list-shapes';
import type { IndexSpec, ReadDoc, ReadStore, WriteOp } from '../../readstore/src/read-store.port';
import type { SubscriptionHandler } from './subscription-runner';

/**
 * A read model where each event touches at most one document: declare how to find the document
 * and how an event changes it; the runner does loading, idempotency (by `_position`) and batching.
 */
export interface DocumentProjection<D extends ReadDoc = ReadDoc> {
  /** Logical collection name, e.g. `api_keys`. */
  readonly name: string;
  /** Bump when the document shape changes: a new version is rebuilt into a fresh collection. */
  readonly version: number;
  readonly eventTypes: readonly string[];
  readonly indexes?: IndexSpec[];
  /** What the model's list routes and polls query; each must be served by one of `indexes` (projections/list-indexes.spec.ts, libs/readstore/src/list-shapes.ts). */
  readonly lists?: ListShape[];
  documentId(event: RecordedEvent): string | null;
  /**
   * Event types that always start a document afresh (evolve ignores `current`), e.g. InstanceRequested.
   * A batch where such an event is a document's first does not load that document: on a MongoDB-wire
   * store each load is a round trip, and under load most documents of a batch are new. Only a replay
   * after a crash can find the document already there; the insert then replaces it and the replay's
   * following events bring it forward again.
   */
  readonly creates?: readonly string[];
  /** Returns the new document, or null to delete it. `current` is null when none exists. */
  evolve(current: D | null, event: RecordedEvent): D | null;
}

/** The subscription (and checkpoint) name of a projection's live projector. */
export function projectorName(p: Pick<DocumentProjection, 'name' | 'version'>): string {
  return `projection:${p.name}:v${p.version}`;
}

/** Resolves a projection's logical name to the physical collection currently serving reads. */
export class ProjectionCatalog {
  private readonly active = new Map<string, { physical: string; at: number }>();

  /**
   * `ttlMs`: how long a resolved name is trusted before the stored one is read again, so that a
   * process which does not run the model (a split deployment's API node) follows the switch another
   * process makes at the end of a rebuild or upgrade.
   */
  constructor(
    private readonly store: ReadStore,
    readonly ttlMs = 2000,
  ) {}

  static physicalName(p: DocumentProjection, suffix = ''): string {
    return `${p.name}_v${p.version}${suffix}`;
  }

  /**
   * The collection serving reads. A model whose version changed keeps serving its previous version's
   * collection until ProjectionEngine.start has rebuilt the new one aside and switched to it (an
   * upgrade never shows an empty or half-filled model); a model never stored gets its first one.
   */
  async resolve(p: DocumentProjection): Promise<string> {
    const cached = this.active.get(p.name);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.physical;
    const stored = await this.store.getMeta<{ collection: string; version: number }>(`collection:${p.name}`);
    const physical = stored ? stored.collection : ProjectionCatalog.physicalName(p);
    if (!stored) await this.store.setMeta(`collection:${p.name}`, { collection: physical, version: p.version });
    this.active.set(p.name, { physical, at: Date.now() });
    return physical;
  }

  /** The version of the collection serving reads, or null when the model was never stored. */
  async storedVersion(p: DocumentProjection): Promise<number | null> {
    return (await this.store.getMeta<{ collection: string; version: number }>(`collection:${p.name}`))?.version ?? null;
  }

  async switchTo(p: DocumentProjection, physical: string): Promise<void> {
    await this.store.setMeta(`collection:${p.name}`, { collection: physical, version: p.version });
    this.active.set(p.name, { physical, at: Date.now() });
  }

  /** Forgets cached names so that another process's switch is picked up. */
  refresh(): void {
    this.active.clear();
  }

  collectionFor<D extends ReadDoc>(p: DocumentProjection<D>): Promise<import('../../readstore/src/read-store.port').ReadCollection<D>> {
    return this.resolve(p as unknown as DocumentProjection).then((name) => this.store.collection<D>(name));
  }
}

/** Subscription handler applying a DocumentProjection to one physical collection. */
export class DocumentProjector<D extends ReadDoc> implements SubscriptionHandler {
  readonly batchSize: number;
  private readonly types: Set<string>;
  private readonly creates: Set<string>;

  /**
   * The documents this projector last wrote or read, by id, least recently used first; `null` marks
   * a document it deleted. A projection has one projector per deployment (the worker, or ROLE=all)
   * and it applies every event of the log in order, so what it wrote is what the collection holds:
   * a document found here is not loaded again. Cleared when the physical collection changes (a
   * rebuild's switch) and after a failed write (the collection may then hold part of the batch).
   */
  private readonly recent = new Map<string, D | null>();
  private recentFor: string | null = null;
  private readonly writtenListeners: Array<(docs: Array<{ id: string; doc: D | null }>) => void> = [];

  constructor(
    readonly projection: DocumentProjection<D>,
    private readonly store: ReadStore,
    private readonly physicalName: () => Promise<string>,
    readonly name = projectorName(projection),
    batchSize = 1000,
    private readonly recentLimit = 20_000,
  ) {
    this.types = new Set(projection.eventTypes);
    this.creates = new Set(projection.creates ?? []);
    this.batchSize = batchSize;
  }

  /** Resolves false when the batch changed no document (the runner may defer its checkpoint). */
  async handle(events: RecordedEvent[]): Promise<boolean> {
    const relevant: Array<{ id: string; event: RecordedEvent }> = [];
    for (const event of events) {
      if (!this.types.has(event.type)) continue;
      const id = this.projection.documentId(event);
      if (id) relevant.push({ id, event });
    }
    if (relevant.length === 0) return false;
    const physical = await this.physicalName();
    if (physical !== this.recentFor) {
      this.recent.clear();
      this.recentFor = physical;
    }
    const collection = this.store.collection<D>(physical);
    const docs = new Map<string, D | null>();
    // A document whose first event in this batch creates it is not loaded (see `creates`), nor one
    // this projector wrote or read recently.
    const fresh = new Set<string>();
    const toLoad = new Set<string>();
    for (const { id, event } of relevant) {
      if (fresh.has(id) || toLoad.has(id) || docs.has(id)) continue;
      if (this.recent.has(id)) {
        docs.set(id, this.recent.get(id)!);
        continue;
      }
      (this.creates.has(event.type) ? fresh : toLoad).add(id);
    }
    if (toLoad.size > 0) for (const doc of await collection.getMany([...toLoad])) docs.set(doc.id, doc);
    const existed = new Set<string>();
    for (const [id, doc] of docs) if (doc) existed.add(id);
    const dirty = new Set<string>();
    for (const { id, event } of relevant) {
      const current = docs.get(id) ?? null;
      // Replays after a crash hand events again: a document that already reflects one skips it.
      if (current && current._position >= event.position) continue;
      docs.set(id, applyEvent(this.projection, current, event, id));
      dirty.add(id);
    }
    if (dirty.size === 0) {
      this.remember(docs);
      return false;
    }
    const ops: WriteOp<D>[] = [];
    for (const id of dirty) {
      const doc = docs.get(id);
      if (doc) ops.push({ kind: 'put', doc, isNew: !existed.has(id) });
      else if (existed.has(id)) ops.push({ kind: 'delete', id });
    }
    if (ops.length > 0) {
      try {
        await collection.write(ops);
      } catch (err) {
        this.recent.clear();
        throw err;
      }
    }
    this.remember(docs);
    if (this.writtenListeners.length > 0) {
      const changed = [...dirty].map((id) => ({ id, doc: docs.get(id) ?? null }));
      for (const listener of this.writtenListeners) listener(changed);
    }
    return true;
  }

  /**
   * Called after each successful write with the documents it changed (null: deleted), as the
   * collection now holds them: an in-process change feed (the job executor's due queue). Listeners
   * must not mutate the documents.
   */
  onWritten(listener: (docs: Array<{ id: string; doc: D | null }>) => void): void {
    this.writtenListeners.push(listener);
  }

  /**
   * The document as this projector last wrote (or read) it in `physical`, if it still holds it: what
   * the collection holds, without a round trip (a write's read-your-writes answer). Undefined if unknown.
   */
  peek(physical: string, id: string): D | null | undefined {
    if (physical !== this.recentFor) return undefined;
    return this.recent.get(id);
  }

  /** Records the batch's documents as the most recently used, then trims the oldest beyond the limit. */
  private remember(docs: Map<string, D | null>): void {
    for (const [id, doc] of docs) {
      this.recent.delete(id);
      this.recent.set(id, doc);
    }
    let excess = this.recent.size - this.recentLimit;
    if (excess <= 0) return;
    for (const id of this.recent.keys()) {
      if (excess-- <= 0) break;
      this.recent.delete(id);
    }
  }
}

/**
 * A projection's document folded straight from the events of its stream: what a write answers
 * with when the read model has not caught up within the bounded wait (never a 404 for an accepted write).
 */
export function foldDocument<D extends ReadDoc>(projection: DocumentProjection<D>, events: RecordedEvent[], id: string, from: D | null = null): D | null {
  let doc = from;
  for (const e of events) {
    if (!projection.eventTypes.includes(e.type) || projection.documentId(e) !== id) continue;
    doc = applyEvent(projection, doc, e, id);
  }
  return doc;
}

/** One fold step shared by the live projector, `foldDocument` and rebuilds: the document after `event`, stamped with its id and position. */
export function applyEvent<D extends ReadDoc>(projection: DocumentProjection<D>, current: D | null, event: RecordedEvent, id: string): D | null {
  const next = projection.evolve(current, event);
  return next ? ({ ...next, id, _position: event.position } as D) : null;
}
