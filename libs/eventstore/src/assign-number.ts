import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import type { AssignNumber, NumberAssignedData, SequenceState } from '../../domain/shared/number-sequence';
import { handleCommand, withoutIdempotencyKey, type CommandContext } from './handle-command';

/** A burst of creates in one project retries its number this often before answering 409 CONFLICT. */
export const NUMBER_ATTEMPTS = 25;

/**
 * Takes the next number of a gapless sequence (libs/domain/shared/number-sequence.ts): the append at
 * the sequence stream's expected revision, retried on fresh state when a concurrent one won. It
 * carries no Idempotency-Key (the numbered record's own append does), so a keyed retry after a crash
 * between the two appends creates the record once, with the next number.
 */
export async function assignNumber<T extends string, F extends string>(
  store: Parameters<typeof handleCommand>[0],
  stream: string,
  decider: Decider<AssignNumber, DomainEvent<T, NumberAssignedData<F>>, SequenceState>,
  command: Omit<AssignNumber, 'type'>,
  context: CommandContext,
): Promise<NumberAssignedData<F>> {
  const assigned = await handleCommand(store, stream, decider, { type: 'AssignNumber', ...command }, withoutIdempotencyKey(context), { attempts: NUMBER_ATTEMPTS });
  return assigned.events[0].data as NumberAssignedData<F>;
}
