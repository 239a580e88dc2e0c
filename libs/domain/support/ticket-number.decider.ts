import type { Decider } from '../shared/domain-error';
import { formatTicketNumber, type TicketNumberAssigned } from './events';

/**
 * A project's ticket numbers (DECISIONS 17): one stream per project whose n-th event assigns number
 * n. Appending with the expected revision makes two concurrent creates take distinct numbers (the
 * loser re-reads and takes the next one).
 */
export type TicketNumberState = { assigned: number };
export type AssignTicketNumber = { type: 'AssignTicketNumber'; projectId: string; ticketId: string; now: string };

export const ticketNumberDecider: Decider<AssignTicketNumber, TicketNumberAssigned, TicketNumberState> = {
  initialState: () => ({ assigned: 0 }),
  evolve: (state, event) => ({ assigned: Math.max(state.assigned, event.data.sequence) }),
  decide: (command, state) => {
    const sequence = state.assigned + 1;
    return [{ type: 'support.TicketNumberAssigned.v1', data: { projectId: command.projectId, ticketId: command.ticketId, sequence, number: formatTicketNumber(sequence), assignedAt: command.now } }];
  },
};
