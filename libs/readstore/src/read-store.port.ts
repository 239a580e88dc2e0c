/**
 * The read-model port. Documents are plain JSON objects with a string `id` and `_position`, the
 * global event-store position the document reflects (projections are idempotent by it).
 * Only the query subset below is allowed so that MongoDB, FerretDB and the in-memory adapter agree.
 */
export type Scalar = string | number | boolean | null;

export interface ReadDoc {
  id: string;
  _position: number;
  [key: string]: unknown;
}

/** Field conditions; dotted paths are allowed. All conditions of a filter must hold (AND). */
export type Condition =
  | Scalar
  | { $eq: Scalar }
  | { $ne: Scalar }
  | { $in: Scalar[] }
  | { $nin: Scalar[] }
  | { $gt: Scalar }
  | { $gte: Scalar }
  | { $lt: Scalar }
  | { $lte: Scalar }
  | { $exists: boolean };

export type Filter = Record<string, Condition>;

export interface SortKey {
  field: string;
  direction: 1 | -1;
}

export interface FindQuery {
  filter?: Filter;
  /** Applied in order; `id` ascending is always appended as the final tie-breaker. */
  sort?: SortKey[];
  skip?: number;
  limit?: number;
  /**
   * false: the caller does not need `total` (internal polls): it is not counted and reads as
   * `skip + items.length`. Counting costs a second pass over the matches on FerretDB.
   */
  withTotal?: boolean;
  /**
   * Keyset seek for walks over many pages (internal polls, runs and exports): only documents after
   * this one in the query's order (its sort fields and `id`; pass the previous page's last item).
   * Each of its sort fields must hold a string, number or boolean, the type every matched document
   * has there (MongoDB compares within a type). Needs `withTotal: false` and no `skip`: a seek
   * counts nothing and skips nothing, so a page costs its own entries on an index, not the pages
   * before it. The public page/limit lists use `afterId` instead (they need `total` and a fallback).
   */
  after?: Record<string, unknown>;
  /**
   * A page of a public page/limit list reached from the page before it (its `next` link's cursor):
   * the id of that page's last item. When that document still exists, matches `filter` and holds a
   * string, number or boolean under each sort field, the adapter seeks past it (as `after`, no skip)
   * and still counts `total` (unless `withTotal: false`); otherwise `skip` applies. Either way the
   * answer is the page `skip` names on unchanged data; the seek only spares the pages before it.
   */
  afterId?: string;
  /**
   * The same from the page after (its `prev` link's cursor): the id of that page's first item. The
   * adapter seeks past it in the reversed order, takes `limit` documents and answers them in the
   * query's order (the `limit` documents just before it), with `total` as before; on the same
   * fallback `skip` applies in the query's own order. Excludes `after` and `afterId`.
   */
  beforeId?: string;
}

/** What an adapter's finds did, for tests and diagnostics: seeks taken (`after`, `afterId`, `beforeId`) and the documents `skip` asked to pass over. */
export interface FindStats {
  seeks: number;
  skipped: number;
}

export interface FindResult<T> {
  items: T[];
  total: number;
}

/**
 * `isNew` is a hint from a writer that knows the document did not exist when it read it (a projector
 * that loaded the batch's documents): adapters may insert instead of replace, which FerretDB does far
 * faster. A wrong hint is still handled correctly (falls back to replace).
 */
export type WriteOp<T extends ReadDoc> = { kind: 'put'; doc: T; isNew?: boolean } | { kind: 'delete'; id: string };

export interface IndexSpec {
  fields: SortKey[];
  unique?: boolean;
}

export interface ReadCollection<T extends ReadDoc = ReadDoc> {
  readonly name: string;
  get(id: string): Promise<T | null>;
  getMany(ids: string[]): Promise<T[]>;
  findOne(filter: Filter): Promise<T | null>;
  find(query: FindQuery): Promise<FindResult<T>>;
  /** Applies the ops in order (replace-or-insert by id, or delete). Not required to be atomic. */
  write(ops: WriteOp<T>[]): Promise<void>;
  ensureIndexes(indexes: IndexSpec[]): Promise<void>;
  drop(): Promise<void>;
}

export interface ReadStore {
  readonly kind: 'mongodb' | 'memory';
  /** Seeks and skips of its finds so far (tests and diagnostics), where the adapter counts them. */
  readonly stats?: FindStats;
  /** A physical collection by its exact name (see ProjectionCollections for logical names). */
  collection<T extends ReadDoc = ReadDoc>(physicalName: string): ReadCollection<T>;
  /** Small key-value area for checkpoints and the logical→physical collection map. */
  getMeta<T = unknown>(key: string): Promise<T | null>;
  setMeta<T = unknown>(key: string, value: T): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const READ_STORE = Symbol('READ_STORE');
