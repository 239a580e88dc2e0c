import type { Decider, DomainEvent } from './domain-error';

/**
 * A gapless per-owner number sequence (ticket numbers `TCK-`, invoice numbers `INV-`): one stream per
 * sequence whose n-th event assigns number n. Appending at the expected revision makes two
 * concurrent assignments take distinct numbers (the loser re-reads and takes the next one), so the
 * numbers handed out are 1, 2, 3, … with no gap and no repeat.
 */
export type SequenceState = { assigned: number };
export type AssignNumber = { type: 'AssignNumber'; projectId: string; ownerId: string; now: string };

/** The event every sequence records: who got which number (`ownerField` names the owner's id, e.g. `ticketId`). */
export type NumberAssignedData<F extends string> = { projectId: string; sequence: number; number: string; assignedAt: string } & Record<F, string>;

export interface SequenceSpec<T extends string, F extends string> {
  /** The event type of an assignment (its stream category puts it on the owning context's topic). */
  eventType: T;
  /** The data field naming what the number was assigned to. */
  ownerField: F;
  /** The visible number of the n-th assignment; `now` is the assignment's time (e.g. for a year). */
  format: (sequence: number, now: string) => string;
}

export function numberSequenceDecider<T extends string, F extends string>(spec: SequenceSpec<T, F>): Decider<AssignNumber, DomainEvent<T, NumberAssignedData<F>>, SequenceState> {
  return {
    // One event per number for as long as the owner lives: the n-th assignment must not read n events.
    snapshot: { name: spec.eventType, version: 1, every: 100 },
    initialState: () => ({ assigned: 0 }),
    evolve: (state, event) => ({ assigned: Math.max(state.assigned, event.data.sequence) }),
    decide: (command, state) => {
      const sequence = state.assigned + 1;
      const data = { projectId: command.projectId, [spec.ownerField]: command.ownerId, sequence, number: spec.format(sequence, command.now), assignedAt: command.now } as NumberAssignedData<F>;
      return [{ type: spec.eventType, data }];
    },
  };
}

/** `<prefix><n padded to 6 digits>`; past 999999 the digits simply grow. */
export const sixDigits = (sequence: number) => String(sequence).padStart(6, '0');
