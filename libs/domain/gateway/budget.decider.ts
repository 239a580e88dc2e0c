import { DomainError, type Decider } from '../shared/domain-error';
import type { SpendReserved, SpendSettled } from './events';

/**
 * One key's month: what is spent (settled) and what open calls hold (reserved). A reservation is
 * admitted only while spent + held + its worst case stays within the cap; since every reservation
 * is appended at the stream's expected revision, concurrent calls are decided one after another and
 * the cap can never be passed (DECISIONS 19).
 */
export interface BudgetState {
  spentMicros: number;
  heldMicros: number;
  open: Record<string, number>;
}

export type ReserveSpend = { type: 'ReserveSpend'; keyId: string; projectId: string; month: string; reservationId: string; amountMicros: number; capMicros: number | null; now: string };
export type SettleSpend = { type: 'SettleSpend'; keyId: string; projectId: string; month: string; reservationId: string; actualMicros: number; now: string };
export type BudgetCommand = ReserveSpend | SettleSpend;
export type BudgetEvent = SpendReserved | SpendSettled;

export const budgetDecider: Decider<BudgetCommand, BudgetEvent, BudgetState> = {
  initialState: () => ({ spentMicros: 0, heldMicros: 0, open: {} }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'gateway.SpendReserved.v1':
        return { ...state, heldMicros: state.heldMicros + event.data.amountMicros, open: { ...state.open, [event.data.reservationId]: event.data.amountMicros } };
      case 'gateway.SpendSettled.v1': {
        const { [event.data.reservationId]: held = 0, ...open } = state.open;
        return { spentMicros: state.spentMicros + event.data.actualMicros, heldMicros: state.heldMicros - held, open };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ReserveSpend': {
        if (command.reservationId in state.open) return [];
        if (!Number.isSafeInteger(command.amountMicros) || command.amountMicros < 0) throw new DomainError('BAD_REQUEST', 'amount must be a whole number of micro-dollars');
        if (command.capMicros !== null && state.spentMicros + state.heldMicros + command.amountMicros > command.capMicros)
          throw new DomainError('INSUFFICIENT_FUNDS', 'This key has reached its monthly spend cap');
        const { type: _t, now, ...rest } = command;
        return [{ type: 'gateway.SpendReserved.v1', data: { ...rest, reservedAt: now } }];
      }
      case 'SettleSpend': {
        const reserved = state.open[command.reservationId];
        // Settled already (or never reserved): settling twice changes nothing.
        if (reserved === undefined) return [];
        // A settlement never exceeds its reservation: the reservation was the worst case.
        const actualMicros = Math.min(Math.max(0, Math.ceil(command.actualMicros)), reserved);
        return [{ type: 'gateway.SpendSettled.v1', data: { keyId: command.keyId, projectId: command.projectId, month: command.month, reservationId: command.reservationId, reservedMicros: reserved, actualMicros, settledAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
