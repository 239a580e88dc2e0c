import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { DomainError } from '../../domain/shared/domain-error';
import { modeOfScope } from '../../domain/shared/scope';
import { aggregateStream } from './aggregate-stream';
import type { EventMetadata, EventStore, IdempotencyReservation, NewEvent } from './event-store.port';
import { WrongExpectedRevisionError } from './event-store.port';

export interface CommandContext {
  metadata: Omit<EventMetadata, 'schemaVersion'>;
}

/**
 * The Idempotency-Key reservation an HTTP request's append carries (DECISIONS 5): the request's key,
 * id and scope, which is the HTTP layer's `principalScope` (`project:<id>` for a project's
 * principals, `admin:<keyId>` for a platform-admin key, whose actor is `admin:<keyId>`). Work that
 * follows from an event (a saga: it has a causation) never carries one.
 */
export function idempotencyReservation(context: CommandContext): IdempotencyReservation | undefined {
  const m = context.metadata as Partial<Record<'idempotencyKey' | 'requestId' | 'causationId' | 'projectId' | 'actor', unknown>>;
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
  const key = str(m.idempotencyKey);
  const requestId = str(m.requestId);
  if (!key || !requestId || m.causationId) return undefined;
  const projectId = str(m.projectId);
  const actor = str(m.actor);
  const scope = projectId ? `project:${projectId}` : actor?.startsWith('admin:') ? actor : undefined;
  return scope ? { scope, key, requestId } : undefined;
}

/**
 * An id a request draws for what it creates (`name` tells its ids apart: 'resource', 'job'). A keyed
 * request's ids follow from its key, scope and request id, so a re-run of the same request after a
 * crash (`recovering`, DECISIONS 5) names the same resource and finds its own earlier events; any
 * other request draws a fresh uuidv7. Keyed ids are name-based (UUID version 8, from SHA-256).
 */
export function requestScopedId(context: CommandContext, name: string): string {
  const r = idempotencyReservation(context);
  if (!r) return uuidv7();
  const h = createHash('sha256').update(`${r.scope}\n${r.key}\n${r.requestId}\n${name}`).digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * A keyed request run again to answer a write that committed but was never answered (DECISIONS 5):
 * it carries the writing request's id and `recovering`, so each of its appends first looks for that
 * request's events on the stream and, finding them, answers with them instead of writing again.
 */
const recoveringRequest = (context: CommandContext): string | undefined => {
  const m = context.metadata;
  return m.recovering === true && typeof m.requestId === 'string' && !m.causationId ? m.requestId : undefined;
};

/**
 * The context of a write a keyed request makes beside its own (a reservation on a shared stream, a
 * number): it carries no Idempotency-Key, which belongs to the request's own write alone (the write
 * the key's answer is recovered from).
 */
export const withoutIdempotencyKey = (context: CommandContext): CommandContext => ({ metadata: { ...context.metadata, idempotencyKey: undefined } });

/**
 * The metadata of events a process manager appends because of `cause`: its causation, its correlation
 * (the cause's, else the cause itself) and its mode (DECISIONS 21: work caused by a test-mode event is
 * test-mode work).
 */
export function causedBy(cause: { id: string; metadata?: Partial<EventMetadata> }, metadata: Omit<EventMetadata, 'schemaVersion' | 'causationId'>): CommandContext['metadata'] {
  const test = cause.metadata?.mode === 'test' || modeOfScope(metadata.projectId as string | undefined) === 'test';
  return { correlationId: cause.metadata?.correlationId ?? cause.id, ...metadata, causationId: cause.id, mode: test ? 'test' : 'live' };
}

/**
 * A stream's state as the caller already knows it (e.g. from a read model), with the revision it is
 * the fold of: the state must be exactly the fold of the stream's events up to that revision.
 */
export interface KnownState<S> {
  state: S;
  revision: number | 'no_stream';
}

export interface CommandResult<S> {
  state: S;
  /** Position of the last appended event, or null when the command decided nothing. */
  position: number | null;
  events: DomainEvent[];
  /** A recovering request found these events already written by its first run (nothing appended now). */
  replayed?: boolean;
}

/**
 * The whole write path: read the stream, fold it, decide, append with the expected revision.
 * A lost race is retried on fresh state a few times, then reported as 409 CONFLICT.
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  streamId: string,
  decider: Decider<C, E, S>,
  command: C,
  context: CommandContext,
  options: { attempts?: number; newStream?: boolean; known?: KnownState<S> } = {},
): Promise<CommandResult<S>> {
  const [result] = await handleCommands(store, [{ streamId, decider, command, newStream: options.newStream, known: options.known }], context, options);
  return result as CommandResult<S>;
}

/** One stream's command in a multi-stream write (`handleCommands`). */
export interface StreamCommand<C = unknown, E extends DomainEvent = DomainEvent, S = unknown> {
  streamId: string;
  decider: Decider<C, E, S>;
  command: C;
  /** The caller just generated the stream's id: the first attempt decides on the initial state. */
  newStream?: boolean;
  known?: KnownState<S>;
  /** The context of this part's events when it is not the write's own (a job its request enqueues). */
  context?: CommandContext;
}

/**
 * A part that follows from what the parts before it decided (a request's job): its command, or null
 * when they decided nothing that calls for one. `earlier` are those parts' events as they will be recorded.
 */
export type FollowingCommand = (earlier: NewEvent[]) => AnyStreamCommand | null;

// Parts differ in their command, event and state types; the write treats them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStreamCommand = StreamCommand<any, any, any>;

/**
 * One decision over several streams, appended at once (the store's `appendMany`: every expected
 * revision holds and all of it is written, or none of it). The first part is the write's own: the
 * Idempotency-Key reservation marks it, and a recovering request (DECISIONS 5) looks for its earlier
 * write there. A part that decides nothing is left out; a lost race re-reads every part and decides
 * again. A store without multi-stream appends (EventStoreDB) gets the parts one after another, in
 * order, as separate appends (what follows from the first is then also re-derived by its saga).
 */
export async function handleCommands(
  store: EventStore,
  parts: ReadonlyArray<AnyStreamCommand | FollowingCommand>,
  context: CommandContext,
  options: { attempts?: number } = {},
): Promise<CommandResult<unknown>[]> {
  const attempts = options.attempts ?? 4;
  const recovering = recoveringRequest(context);
  const first = parts[0] as AnyStreamCommand;
  if (recovering) {
    const found = await ownEarlierWrite(store, first.streamId, first.decider, recovering);
    if (found) return [found];
  }
  for (let attempt = 1; ; attempt++) {
    const guessing = attempt === 1 && !recovering;
    const decided: Array<{ part: AnyStreamCommand; state: unknown; expected: number | 'no_stream'; events: DomainEvent[]; appended: NewEvent[] }> = [];
    const earlier: NewEvent[] = [];
    let misguessed = false;
    for (const p of parts) {
      const part = typeof p === 'function' ? p(earlier) : p;
      if (!part) continue;
      // The first attempt may decide without reading: on the initial state when the caller just
      // generated the stream's id (`newStream`), or on a state the caller knows at a revision
      // (`known`). The append's expected revision checks that guess: if the stream is elsewhere (a
      // saga's replay, a read model behind), the next attempt reads and folds it.
      const guess: KnownState<unknown> | undefined = guessing ? part.known ?? (part.newStream ? { state: part.decider.initialState(), revision: 'no_stream' } : undefined) : undefined;
      const { state, revision: expected } = guess ?? (await aggregateStream(store, part.streamId, part.decider));
      let events: DomainEvent[];
      try {
        events = part.decider.decide(part.command, state);
      } catch (err) {
        // A refusal is answered from the stream, never from a guess.
        if (guess) {
          misguessed = true;
          break;
        }
        throw err;
      }
      if (events.length === 0 && guess) {
        misguessed = true;
        break;
      }
      const appended = events.map((e) => toNewEvent(e, part.context ?? context));
      earlier.push(...appended);
      decided.push({ part, state, expected, events, appended });
    }
    if (misguessed) continue;
    const writing = decided.filter((d) => d.events.length > 0);
    const resultOf = (d: (typeof decided)[number], position: number | null): CommandResult<unknown> => {
      let state = d.state;
      for (const e of d.events) state = d.part.decider.evolve(state, e);
      return { state, position, events: d.events };
    };
    if (writing.length === 0) return decided.map((d) => resultOf(d, null));
    const idempotency = idempotencyReservation(context);
    try {
      const positions = new Map<(typeof decided)[number], number>();
      if (writing.length > 1 && store.appendMany) {
        const results = await store.appendMany(
          writing.map((d) => ({ streamId: d.part.streamId, events: d.appended, expectedRevision: d.expected })),
          { idempotency },
        );
        writing.forEach((d, i) => positions.set(d, results[i].position));
      } else {
        for (const [i, d] of writing.entries()) positions.set(d, (await store.append(d.part.streamId, d.appended, { expectedRevision: d.expected, idempotency: i === 0 ? idempotency : undefined })).position);
      }
      return decided.map((d) => resultOf(d, positions.get(d) ?? null));
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) {
        if (attempt < attempts) continue;
        throw new DomainError('CONFLICT', `Concurrent modification of ${err.streamId}; retry the request`);
      }
      throw err;
    }
  }
}

/**
 * What a recovering request (DECISIONS 5) appended to the stream in its first run, with the state as of
 * it; null for any other request, or when its first run appended nothing there. For a handler whose
 * write follows a call outside (a payment provider's): it looks first, and makes no second call.
 */
export async function earlierWrite<C, E extends DomainEvent, S>(store: EventStore, streamId: string, decider: Decider<C, E, S>, context: CommandContext): Promise<CommandResult<S> | null> {
  const recovering = recoveringRequest(context);
  return recovering ? ownEarlierWrite(store, streamId, decider, recovering) : null;
}

/** The events `requestId` appended to the stream, with the state as of the last of them; null when it appended none. */
async function ownEarlierWrite<C, E extends DomainEvent, S>(store: EventStore, streamId: string, decider: Decider<C, E, S>, requestId: string): Promise<CommandResult<S> | null> {
  const events = await store.readStream(streamId);
  const own = events.filter((e) => e.metadata.requestId === requestId && !e.metadata.causationId);
  if (own.length === 0) return null;
  const last = own[own.length - 1].position;
  const { state } = await aggregateStream({ readStream: async () => events }, streamId, decider, { upToPosition: last });
  return { state, position: last, events: own.map((e) => ({ type: e.type, data: e.data }) as DomainEvent), replayed: true };
}

export function toNewEvent(e: DomainEvent, context: CommandContext): NewEvent {
  // Every event of a data scope carries its mode (DECISIONS 21), also when a timer wrote it.
  const { mode: given, projectId } = context.metadata as Partial<EventMetadata>;
  const mode = given ?? (projectId ? modeOfScope(projectId) : undefined);
  const { recovering: _recovering, ...metadata } = context.metadata;
  return { id: uuidv7(), type: e.type, data: e.data as Record<string, unknown>, metadata: { ...metadata, ...(mode ? { mode } : {}), schemaVersion: 1 } };
}
