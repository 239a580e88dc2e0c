import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { handleCommand, withoutIdempotencyKey, type CommandContext } from './handle-command';

/**
 * A stream shared by racing requests, written beside each request's own write: a reservation ledger
 * (libs/domain/shared/reservation.ts) or a number sequence (number-sequence.ts).
 */
export interface Ledger<C, E extends DomainEvent, S> {
  stream: string;
  decider: Decider<C, E, S>;
  /** How often a lost revision check is retried on the fresh fold (each round commits one of the racing appends). */
  attempts: number;
}

/**
 * Decides `command` on the ledger and appends it at the revision it read. It carries no
 * Idempotency-Key reservation: the key's committed write stays the request's own record (its lost
 * answer is recovered from that stream), and what a crash leaves here before it is a reservation
 * whose holder never came (released by the reservation rules) or a number never used (the keyed
 * retry takes the next).
 */
export const appendAside = <C, E extends DomainEvent, S>(store: Parameters<typeof handleCommand>[0], ledger: Ledger<C, E, S>, command: C, context: CommandContext) =>
  handleCommand(store, ledger.stream, ledger.decider, command, withoutIdempotencyKey(context), { attempts: ledger.attempts });
