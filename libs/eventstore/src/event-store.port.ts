/**
 * The event store port. Positions are the global log order (1-based, strictly increasing in commit
 * order, gap-free for readers: an event at position p is only ever visible after every event below p).
 * Revisions are per stream, 0-based.
 */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface EventMetadata {
  projectId?: string;
  actor?: string;
  requestId?: string;
  correlationId?: string;
  causationId?: string;
  idempotencyKey?: string;
  /** live or test (DECISIONS 21): the mode of the request (or of the event that caused this one); absent means live. */
  mode?: 'live' | 'test';
  /** On a command's context only, never recorded: a keyed request re-run to answer its committed write (`handleCommand`). */
  recovering?: boolean;
  schemaVersion: number;
  [key: string]: unknown;
}

export interface NewEvent<T extends string = string, D = Record<string, unknown>> {
  id: string;
  type: T;
  data: D;
  metadata: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = Record<string, unknown>> {
  id: string;
  type: T;
  streamId: string;
  revision: number;
  position: number;
  data: D;
  metadata: EventMetadata;
  /** ISO 8601 commit time recorded by the store. */
  recordedAt: string;
}

export interface AppendResult {
  /** Revision of the last event written (the stream's new current revision). */
  nextRevision: number;
  /** Global position of the last event written. */
  position: number;
}

export interface ReadAllOptions {
  /** Exclusive: returns events with position > fromPosition. 0 = from the start. */
  fromPosition: number;
  maxCount: number;
}

export interface ReadStreamOptions {
  fromRevision?: number;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive, like readAll. */
  fromPosition: number;
  batchSize?: number;
  /**
   * Live batches start at most this often (default 0: as soon as woken). Events that arrive within
   * the interval join the next batch, so a subscriber nobody waits on (the Kafka relay) sends fewer,
   * larger batches under load; an idle subscription still handles a lone event at once.
   */
  minBatchIntervalMs?: number;
  /** Called with each batch in position order; the next batch is read after it resolves. */
  onEvents: (events: RecordedEvent[]) => Promise<void>;
  /** Called when a batch handler throws or the store fails; the subscription retries with backoff. */
  onError?: (err: unknown) => void;
}

export interface Subscription {
  /** Position of the last event whose batch handler resolved. */
  readonly position: number;
  stop(): Promise<void>;
}

/**
 * An HTTP request's Idempotency-Key reservation carried by its append (DECISIONS 5). A store that keeps
 * idempotency records beside its events (the SQL store's `idempotency` table) marks the reservation
 * `committed` (request, stream, position) in the append's own transaction, so a crash can never
 * separate the write from the record of it; and it refuses an append for a key that another request
 * already wrote (`IdempotencyKeyCommittedError`). Stores without such records ignore it (the key is in
 * the events' metadata there).
 */
export interface IdempotencyReservation {
  /** `project:<id>` or `admin:<keyId>`: the scope the HTTP layer reserved the key in. */
  scope: string;
  key: string;
  /** The writing request: several appends of one request may share a reservation. */
  requestId: string;
}

export interface AppendOptions {
  expectedRevision: ExpectedRevision;
  idempotency?: IdempotencyReservation;
}

/** One stream's part of a multi-stream append. */
export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

/**
 * A fold's state at a revision of a stream, kept so that a long-lived stream (a number sequence, a
 * wallet, a project's roles) is not read from its first event on every write: `aggregateStream`
 * folds only the events after it. A cache, never a source of truth: dropping every snapshot changes
 * no answer. `name` says which fold (and which version of it) the state is of.
 */
export interface StreamSnapshot {
  revision: number;
  position: number;
  /** The state, encoded by `aggregateStream` (JSON with Maps and Sets). */
  state: string;
}

/**
 * A fold's state after every event, up to a global position, of the streams sharing a key (a
 * resource's `<prefix>-<id>` streams), kept for reads as of an instant (`?asOf=`). `time` is the
 * latest commit time among the folded events: the snapshot answers any instant at or after it.
 * A cache like StreamSnapshot: dropping them changes no answer.
 */
export interface InstantSnapshot {
  position: number;
  /** ISO 8601, UTC, millisecond precision. */
  time: string;
  state: string;
}

/** A stream and its current revision. */
export interface StreamHead {
  streamId: string;
  revision: number;
}

export interface EventStore {
  readonly kind: string;
  /**
   * The streams whose name's id part (after its first '-') is `key`, with their revisions, read at one
   * instant of the log. Stores that cannot find streams by key leave these three out.
   */
  streamsOfKey?(key: string): Promise<StreamHead[]>;
  /** The newest snapshot of fold `name` for `key` whose time is at or before `at` (ms since the epoch). */
  readInstantSnapshot?(key: string, name: string, at: number): Promise<InstantSnapshot | undefined>;
  /** Keeps the snapshots (one already kept at a position stays as it is). */
  writeInstantSnapshots?(key: string, name: string, snapshots: InstantSnapshot[]): Promise<void>;
  /** The newest snapshot of `name` on the stream; stores without snapshots leave these out. */
  readSnapshot?(streamId: string, name: string): Promise<StreamSnapshot | undefined>;
  /** Keeps `snapshot` unless one at a higher revision is kept already. */
  writeSnapshot?(streamId: string, name: string, snapshot: StreamSnapshot): Promise<void>;
  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams (each once) in one transaction: every expected revision holds and all
   * of it is written, or nothing is (WrongExpectedRevisionError naming the first stream whose check
   * failed). The events take consecutive positions in the parts' order; one result per part. The
   * idempotency mark names the first part's stream and last event (the request's own write). Stores that cannot (EventStoreDB) leave it out.
   */
  appendMany?(appends: StreamAppend[], options?: Pick<AppendOptions, 'idempotency'>): Promise<AppendResult[]>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up from `fromPosition`, then live. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /** Position of the newest committed event (0 when empty). A `readAll` after it reaches at least that position. */
  headPosition(): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected revision on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** The append's Idempotency-Key was already written by another request: nothing was appended. */
export class IdempotencyKeyCommittedError extends Error {
  /** Answered 409 IDEMPOTENCY_IN_PROGRESS: the key's first request wrote; a retry gets its answer. */
  readonly code = 'IDEMPOTENCY_IN_PROGRESS';

  constructor(
    readonly scope: string,
    readonly key: string,
    readonly byRequestId: string | null,
  ) {
    super(`Idempotency-Key already written by request ${byRequestId ?? '?'}`);
    this.name = 'IdempotencyKeyCommittedError';
  }
}

export const EVENT_STORE = Symbol('EVENT_STORE');
