import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import type { AssignNumber, NumberAssignedData, SequenceState } from '../../domain/shared/number-sequence';
import type { CommandContext } from './handle-command';
import { appendAside } from './append-aside';

/** A burst of creates in one project retries its number this often before answering 409 CONFLICT. */
export const NUMBER_ATTEMPTS = 25;

/**
 * Takes the next number of a gapless sequence (libs/domain/shared/number-sequence.ts), appended aside
 * on the sequence stream like a reservation, so a keyed retry after a crash between the two appends
 * creates the record once, with the next number.
 */
export async function assignNumber<T extends string, F extends string>(
  store: Parameters<typeof appendAside>[0],
  stream: string,
  decider: Decider<AssignNumber, DomainEvent<T, NumberAssignedData<F>>, SequenceState>,
  command: Omit<AssignNumber, 'type'>,
  context: CommandContext,
): Promise<NumberAssignedData<F>> {
  const assigned = await appendAside(store, { stream, decider, attempts: NUMBER_ATTEMPTS }, { type: 'AssignNumber', ...command }, context);
  return assigned.events[0].data as NumberAssignedData<F>;
}
