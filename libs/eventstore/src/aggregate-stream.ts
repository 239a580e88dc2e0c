import type { DomainEvent } from '../../domain/shared/domain-error';
import { DomainError } from '../../domain/shared/domain-error';
import type { EventStore, RecordedEvent } from './event-store.port';

/** An event of a stream whose events are `E`, as recorded: the domain event with its id, revision, position, metadata and time. */
export type RecordedOf<E extends DomainEvent> = E & Omit<RecordedEvent, 'type' | 'data'>;

/**
 * What folds a stream: a decider, or any initial state and evolve. An evolve that takes the domain
 * event (a decider's) fits; one written for the fold may read where and when the event was recorded.
 */
export interface StreamFold<E extends DomainEvent, S> {
  initialState: () => S;
  evolve: (state: S, event: RecordedOf<E>) => S;
}

export interface AggregateStreamOptions {
  /** Fold only the events at or before this global position: the state as of a write. */
  upToPosition?: number;
  /** Fold only the events recorded at or before this instant (ISO 8601 in any offset, or a Date). */
  until?: string | Date;
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
  store: Pick<EventStore, 'readStream'>,
  streamId: string,
  fold: StreamFold<E, S>,
  options: AggregateStreamOptions = {},
): Promise<AggregatedStream<S>> {
  const until = options.until === undefined ? undefined : instant(options.until);
  const { upToPosition } = options;
  let state = fold.initialState();
  let revision: number | 'no_stream' = 'no_stream';
  let position: number | null = null;
  for (const e of await store.readStream(streamId)) {
    if (upToPosition !== undefined && e.position > upToPosition) break;
    if (until !== undefined && new Date(e.recordedAt).getTime() > until) break;
    // The one narrowing of a recorded event to its stream's events: a stream holds its decider's events only.
    state = fold.evolve(state, e as unknown as RecordedOf<E>);
    revision = e.revision;
    position = e.position;
  }
  return { state, revision, position };
}

/** Milliseconds since the epoch of an instant: its offset taken into account, never compared as text. */
function instant(at: string | Date): number {
  const ms = (typeof at === 'string' ? new Date(at) : at).getTime();
  if (Number.isNaN(ms)) throw new DomainError('BAD_REQUEST', `Not an ISO 8601 instant: ${String(at)}`);
  return ms;
}
