/**
 * The use-case side of the reservation mechanism (libs/domain/shared/reservation.ts): a holder's
 * reservation is appended on its ledger before the holder's own write, released after the holder
 * gives it up, and a conflicting one is released only when its holder's stream proves it releasable
 * (the one release and timeout rule, `isReleasable`). The callers keep only what is theirs: which
 * ledger, what conflicts, and how to read a holder's stream.
 */
import { DomainError, type DomainEvent } from '../libs/domain/shared/domain-error';
import { isReleasable, RESERVATION_TIMEOUT_MS, type HolderSeen, type Reservation } from '../libs/domain/shared/reservation';
import type { CommandContext } from '../libs/eventstore/src/handle-command';
import { appendAside, type Ledger } from '../libs/eventstore/src/append-aside';
import { aggregateStream } from '../libs/eventstore/src/aggregate-stream';
import type { PortsOf } from '../libs/runtime/src/ports';

export type { Ledger };

/** What a reservation needs to release the conflicting ones whose holders are gone (or never came). */
export interface StaleCheck<S, V> {
  /** The reservations of the ledger's fold that conflict with this one. */
  conflicting: (state: S) => Array<[string, Reservation<V>]>;
  /** What the holder's own stream says now. */
  seen: (holderId: string, reservation: Reservation<V>) => Promise<HolderSeen>;
  /** The timeout rule's bound (default RESERVATION_TIMEOUT_MS). */
  timeoutMs?: number;
}

const isConflict = (err: unknown) => err instanceof DomainError && err.code === 'CONFLICT';

/** The holders among `candidates` that the release and timeout rules let go, as their streams say at `now`. */
export async function releasableHolders<V>(candidates: Array<[string, Reservation<V>]>, seen: (holderId: string, reservation: Reservation<V>) => Promise<HolderSeen>, now: string, timeoutMs = RESERVATION_TIMEOUT_MS): Promise<string[]> {
  const free: string[] = [];
  for (const [id, r] of candidates) if (isReleasable(r, await seen(id, r), now, timeoutMs)) free.push(id);
  return free;
}

/**
 * Appends the reservation `command([])` on its ledger. Refused as CONFLICT and given `stale`: the
 * conflicting reservations whose holders the rules let go are looked up, and it is decided once more
 * releasing them (a conflict still standing is the caller's to answer).
 */
export async function reserve<C, E extends DomainEvent, S, V>(ports: PortsOf<'events' | 'now'>, ledger: Ledger<C, E, S>, command: (releasable: string[], now: string) => C, context: CommandContext, stale?: StaleCheck<S, V>) {
  const append = (releasable: string[]) => appendAside(ports.events, ledger, command(releasable, ports.now()), context);
  try {
    return await append([]);
  } catch (err) {
    if (!stale || !isConflict(err)) throw err;
    const { state } = await aggregateStream(ports.events, ledger.stream, ledger.decider);
    return append(await releasableHolders(stale.conflicting(state), stale.seen, ports.now(), stale.timeoutMs));
  }
}

/**
 * Records a holder's release. Best effort: the holder's own event is written already, and a
 * reservation left behind (a crash, a failure here) is released by the rules when it is next met.
 */
export async function release<C, E extends DomainEvent, S>(ports: PortsOf<'events' | 'logger' | 'now'>, ledger: Ledger<C, E, S>, command: (now: string) => C, context: CommandContext, log: Record<string, unknown> = {}): Promise<void> {
  await appendAside(ports.events, ledger, command(ports.now()), context).catch((err) =>
    ports.logger.warn({ err: String(err), stream: ledger.stream, ...log }, 'could not record a reservation’s release; the rules release it when it is next met'),
  );
}

/**
 * Reserve, then write the holder: a write that fails gives the reservation back (`giveBack`, which
 * leaves it when the holder holds it after all: a write that committed though its answer was lost).
 * A crash between the two leaves a reservation whose holder never came, which the rules release.
 */
export async function reserveThenWrite<R, T>(reserveIt: () => Promise<R>, write: (reservation: R) => Promise<T>, giveBack: (reservation: R) => Promise<void>): Promise<T> {
  const reservation = await reserveIt();
  try {
    return await write(reservation);
  } catch (err) {
    await giveBack(reservation);
    throw err;
  }
}
