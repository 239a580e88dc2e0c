/**
 * One reservation mechanism (issue 21 §1) for what must be unique or held across streams: private
 * network ranges (no overlap in a project's region), custom-role holds (no delete while granted).
 *
 * A *holder* (the stream whose create or grant the reservation guards: a network, a key's or a
 * member's grant) first reserves a *value* on a ledger stream, appended at the ledger's revision, so
 * racing reservations are ordered there and the later one decides on the earlier one; the holder's
 * own event follows. A reservation is keyed by its holder's id.
 *
 * Release rule, one for all: a reservation ends by the holder's release (recorded on the ledger), or
 * when the caller proved, on the holder's own stream, that it holds the value no more (`gone`:
 * deleted, gave it up, or closed so that it never can).
 *
 * Timeout rule, one for all: a holder whose stream is still empty (`unseen`) `timeoutMs` after its
 * reservation never came (a crash or a refusal between the two appends) and is releasable. The bound
 * is a parameter; RESERVATION_TIMEOUT_MS is the default. A caller that can close the holder's stream
 * instead (custom roles void the grant there) proves it `gone` and needs no clock.
 *
 * Pure: `now` comes in the command, never from a clock.
 */
import { DomainError, type Decider, type DomainEvent } from './domain-error';

/**
 * The default bound of the timeout rule. A holder's own append follows its reservation within the
 * same request, which is answered (or abandoned) well within this; a holder still unwritten after
 * it never will be.
 */
export const RESERVATION_TIMEOUT_MS = 30_000;

export interface Reservation<V> {
  value: V;
  reservedAt: string;
}
/** The open reservations of a ledger (or of one resource of it), by holder id. */
export type Reservations<V> = Record<string, Reservation<V>>;

/** What the holder's own stream says, as the caller read it: it holds the value, it holds it no more, or it was never written. */
export type HolderSeen = 'holds' | 'gone' | 'unseen';

/** The release and timeout rules: whether `reservation` may be released, given what its holder's stream says at `now`. */
export function isReleasable(reservation: Pick<Reservation<unknown>, 'reservedAt'>, seen: HolderSeen, now: string, timeoutMs = RESERVATION_TIMEOUT_MS): boolean {
  if (seen === 'gone') return true;
  if (seen === 'holds') return false;
  return Date.parse(now) - Date.parse(reservation.reservedAt) > timeoutMs;
}

/** The reservations other than `holderId`'s whose values conflict with `value`. */
export const conflictingReservations = <V>(reservations: Reservations<V>, holderId: string, value: V, conflicts: (held: V, wanted: V) => boolean): Array<[string, Reservation<V>]> =>
  Object.entries(reservations).filter(([id, r]) => id !== holderId && conflicts(r.value, value));

/** The reservations not in `releasable` (those the caller proved releasable): they still hold. */
export const heldReservations = <V>(reservations: Reservations<V>, releasable: readonly string[]): Array<[string, Reservation<V>]> =>
  Object.entries(reservations).filter(([id]) => !releasable.includes(id));

/**
 * Reserve `value` for `holderId`: null when it holds a reservation already (a repeat); else the
 * conflicting reservations to release with it (all proven releasable) and the new one. A conflicting
 * reservation not proven releasable refuses it: CONFLICT, worded by `describe`.
 */
export function decideReservation<V>(
  reservations: Reservations<V>,
  command: { holderId: string; value: V; releasable: readonly string[]; now: string },
  conflicts: (held: V, wanted: V) => boolean,
  describe: (holderId: string, held: Reservation<V>) => string,
): { release: Array<[string, Reservation<V>]>; reserve: Reservation<V> } | null {
  if (Object.hasOwn(reservations, command.holderId)) return null;
  const release = conflictingReservations(reservations, command.holderId, command.value, conflicts);
  const blocking = release.find(([id]) => !command.releasable.includes(id));
  if (blocking) throw new DomainError('CONFLICT', describe(blocking[0], blocking[1]));
  return { release, reserve: { value: command.value, reservedAt: command.now } };
}

/**
 * Folds one reservation event into `reservations`, in place (a fold owns its state; copying per event
 * made a fold quadratic in the reservations). `reservation` null: the holder's is released.
 */
export function applyReservation<V>(reservations: Reservations<V>, holderId: string, reservation: Reservation<V> | null): Reservations<V> {
  if (reservation) reservations[holderId] = reservation;
  else delete reservations[holderId];
  return reservations;
}

/** Reserve on a ledger. `releasable`: conflicting holders the caller proved releasable (isReleasable). */
export type Reserve<V, S> = { type: 'Reserve'; scope: S; holderId: string; value: V; releasable: string[]; now: string };
/** The holder gives its reservation up. Nothing to do when it holds none. */
export type Release<S> = { type: 'Release'; scope: S; holderId: string; now: string };
export type LedgerCommand<V, S> = Reserve<V, S> | Release<S>;
export type LedgerState<V> = { reserved: Reservations<V> };

/** A ledger's own vocabulary: its event types (kept as recorded), what conflicts, and how a refusal reads. */
export interface LedgerSpec<V, S, E extends DomainEvent> {
  snapshot: { name: string; version: number; every: number };
  conflicts: (held: V, wanted: V) => boolean;
  describe: (holderId: string, held: Reservation<V>, command: Reserve<V, S>) => string;
  reserved: (scope: S, holderId: string, reservation: Reservation<V>) => E;
  released: (scope: S, holderId: string, held: Reservation<V>, at: string) => E;
  /** The holder an event names, and its reservation (null for a release). */
  read: (event: E) => { holderId: string; reservation: Reservation<V> | null };
}

/** A stream of reservations alone (a ledger), decided by the rules above. */
export function reservationLedger<V, S, E extends DomainEvent>(spec: LedgerSpec<V, S, E>): Decider<LedgerCommand<V, S>, E, LedgerState<V>> {
  return {
    snapshot: spec.snapshot,
    initialState: () => ({ reserved: {} }),
    evolve: (state, event) => {
      const { holderId, reservation } = spec.read(event);
      return { reserved: applyReservation(state.reserved, holderId, reservation) };
    },
    decide: (command, state) => {
      if (command.type === 'Release') {
        const held = Object.hasOwn(state.reserved, command.holderId) ? state.reserved[command.holderId] : undefined;
        return held ? [spec.released(command.scope, command.holderId, held, command.now)] : [];
      }
      const decision = decideReservation(state.reserved, command, spec.conflicts, (id, held) => spec.describe(id, held, command));
      if (!decision) return [];
      return [...decision.release.map(([id, held]) => spec.released(command.scope, id, held, command.now)), spec.reserved(command.scope, command.holderId, decision.reserve)];
    },
  };
}
