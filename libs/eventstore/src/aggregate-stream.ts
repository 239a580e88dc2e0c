import type { DomainEvent, SnapshotPolicy } from '../../domain/shared/domain-error';
import { DomainError } from '../../domain/shared/domain-error';
import type { EventStore, RecordedEvent, StreamSnapshot } from './event-store.port';

/** An event of a stream whose events are `E`, as recorded: the domain event with its id, revision, position, metadata and time. */
export type RecordedOf<E extends DomainEvent> = E & Omit<RecordedEvent, 'type' | 'data'>;

/**
 * What folds a stream: a decider, or any initial state and evolve. An evolve that takes the domain
 * event (a decider's) fits; one written for the fold may read where and when the event was recorded.
 */
export interface StreamFold<E extends DomainEvent, S> {
  initialState: () => S;
  evolve: (state: S, event: RecordedOf<E>) => S;
  /** Read from and keep snapshots of the state (a decider's policy): the events before one are not read. */
  snapshot?: SnapshotPolicy;
}

/** What aggregateStream needs of a store: its streams, and its snapshots where it keeps them. */
export type FoldSource = Pick<EventStore, 'readStream' | 'readSnapshot' | 'writeSnapshot'>;

export interface AggregateStreamOptions {
  /** Fold only the events at or before this global position: the state as of a write. */
  upToPosition?: number;
  /** Fold only the events recorded at or before this instant (ISO 8601 in any offset, or a Date). */
  until?: string | Date;
  /** Continue from a state already folded (a cache's): only the events after its revision are read, no snapshot. */
  from?: AggregatedStream<unknown>;
}

/** A stream's state, with the revision it is the fold of (usable as handleCommand's `known`). */
export interface AggregatedStream<S> {
  state: S;
  /** Revision of the last event folded, 'no_stream' when none was. */
  revision: number | 'no_stream';
  /** Global position of the last event folded, null when none was. */
  position: number | null;
}

/**
 * Reads a stream and folds it. With `upToPosition` or `until` the fold stops at the first event past
 * the bound, so the state is always that of a prefix of the stream (one that existed), also if a
 * store's commit times were not in stream order.
 */
export async function aggregateStream<E extends DomainEvent, S>(
  store: FoldSource,
  streamId: string,
  fold: StreamFold<E, S>,
  options: AggregateStreamOptions = {},
): Promise<AggregatedStream<S>> {
  const until = options.until === undefined ? undefined : instant(options.until);
  const { upToPosition } = options;
  // A snapshot's commit time is not kept, so a fold bounded by an instant starts from the first event.
  const policy = until === undefined && !options.from && store.readSnapshot ? fold.snapshot : undefined;
  const name = policy && `${policy.name}@${policy.version}`;
  const kept = name ? await store.readSnapshot!(streamId, name) : undefined;
  const start = kept && (upToPosition === undefined || kept.position <= upToPosition) ? kept : undefined;
  const from = options.from as AggregatedStream<S> | undefined;
  let state = from ? from.state : start ? (decodeState(start.state) as S) : fold.initialState();
  let revision: number | 'no_stream' = from ? from.revision : start ? start.revision : 'no_stream';
  let position: number | null = from ? from.position : start ? start.position : null;
  let folded = 0;
  for (const e of await store.readStream(streamId, typeof revision === 'number' ? { fromRevision: revision + 1 } : {})) {
    if (upToPosition !== undefined && e.position > upToPosition) break;
    if (until !== undefined && new Date(e.recordedAt).getTime() > until) break;
    // The one narrowing of a recorded event to its stream's events: a stream holds its decider's events only.
    state = fold.evolve(state, e as unknown as RecordedOf<E>);
    revision = e.revision;
    position = e.position;
    folded++;
  }
  if (name && folded >= policy.every && typeof revision === 'number' && position !== null) {
    const snapshot: StreamSnapshot = { revision, position, state: encodeState(state) };
    // A cache: a write that fails leaves the next fold reading a little more, nothing else.
    await store.writeSnapshot?.(streamId, name, snapshot).catch(() => undefined);
  }
  return { state, revision, position };
}

/**
 * A fold's state as JSON, its Maps and Sets as `{$map: entries}` and `{$set: values}` (decider states
 * hold no other class). A walk rather than JSON's replacer and reviver, which call back for every
 * value and made a 100,000-reference wallet's snapshot take ten times as long as its parse.
 */
export function encodeState(state: unknown): string {
  return JSON.stringify(toPlain(state));
}

export function decodeState(text: string): unknown {
  return fromPlain(JSON.parse(text));
}

const isObject = (v: unknown): v is object => v !== null && typeof v === 'object';

function toPlain(v: unknown): unknown {
  if (!isObject(v)) return v;
  if (v instanceof Map) return { $map: Array.from(v, ([k, x]) => [toPlain(k), toPlain(x)]) };
  if (v instanceof Set) return { $set: Array.from(v, toPlain) };
  if (Array.isArray(v)) return v.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = toPlain(x);
  return out;
}

function fromPlain(v: unknown): unknown {
  if (!isObject(v)) return v;
  if (Array.isArray(v)) return v.map(fromPlain);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && Array.isArray(o.$map)) return new Map((o.$map as [unknown, unknown][]).map(([k, x]) => [fromPlain(k), fromPlain(x)]));
  if (keys.length === 1 && Array.isArray(o.$set)) return new Set(o.$set.map(fromPlain));
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = fromPlain(o[k]);
  return out;
}

/** Milliseconds since the epoch of an instant: its offset taken into account, never compared as text. */
function instant(at: string | Date): number {
  const ms = (typeof at === 'string' ? new Date(at) : at).getTime();
  if (Number.isNaN(ms)) throw new DomainError('BAD_REQUEST', `Not an ISO 8601 instant: ${String(at)}`);
  return ms;
}
