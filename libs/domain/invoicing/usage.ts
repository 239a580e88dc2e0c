import { DomainError, type Decider } from '../shared/domain-error';
import type { Currency, UsageLine, UsagePeriodClosed } from './events';

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A stretch of time a resource ran at one hourly price: `to` null while it still runs. */
export interface RunInterval {
  from: string;
  to: string | null;
  hourlyPriceCents: number;
}

/**
 * Started hours (DECISIONS 9/16): a run from `from` bills hour k (k = 0, 1, …) when it was still
 * running at `from + k h`, i.e. every hour it started, a partial last hour included. An hour counts in
 * the window [start, end) that holds its start; `now` ends a run that has not stopped yet.
 */
export function startedHours(run: RunInterval, start: number, end: number, now: number): number {
  const from = Date.parse(run.from);
  const until = Math.min(run.to === null ? now : Date.parse(run.to), end);
  const first = Math.max(0, Math.ceil((start - from) / HOUR_MS)); // first hour starting at or after `start`
  const last = Math.ceil((until - from) / HOUR_MS) - 1; // last hour starting before `until`
  return Math.max(0, last - first + 1);
}

export interface UsageDay {
  date: string;
  hours: number;
  costCents: number;
}

/** Cost of the hours started in [start, end) (summaries, upcoming charges, a closed period). */
export function costIn(runs: readonly RunInterval[], start: number, end: number, now: number): { hours: number; costCents: number } {
  let hours = 0;
  let costCents = 0;
  for (const run of runs) {
    const h = startedHours(run, start, end, now);
    hours += h;
    costCents += h * run.hourlyPriceCents;
  }
  return { hours, costCents };
}

/** A resource's hours and cost in [start, end), in total and per UTC day (an hour belongs to the day it started in). */
export function usageIn(runs: readonly RunInterval[], start: number, end: number, now: number): { hours: number; costCents: number; days: UsageDay[] } {
  const days: UsageDay[] = [];
  for (let dayStart = Math.floor(start / DAY_MS) * DAY_MS; dayStart < end; dayStart += DAY_MS) {
    const day = costIn(runs, Math.max(start, dayStart), Math.min(end, dayStart + DAY_MS), now);
    if (day.hours > 0) days.push({ date: new Date(dayStart).toISOString().slice(0, 10), ...day });
  }
  return { hours: days.reduce((n, d) => n + d.hours, 0), costCents: days.reduce((n, d) => n + d.costCents, 0), days };
}

// ------------------------------------------------------------------------------------------ months
export const startOfMonth = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
export const startOfNextMonth = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

// ------------------------------------------------------------------------------- usage periods
/** A project's closed usage periods: they follow each other without overlap. */
export type UsageBillingState = { closedThrough: string | null };
export type CloseUsagePeriod = {
  type: 'CloseUsagePeriod';
  projectId: string;
  periodStart: string;
  periodEnd: string;
  currency: Currency;
  lines: UsageLine[];
  /** The id the period's invoice will have (derived from project and period, so a replay names the same one). */
  invoiceId: string;
  now: string;
};

/**
 * Closing a period that is already closed decides nothing (the run's replay after a restart); one
 * that would overlap or leave a hole after the last closed one is refused.
 */
export const usageBillingDecider: Decider<CloseUsagePeriod, UsagePeriodClosed, UsageBillingState> = {
  initialState: () => ({ closedThrough: null }),
  evolve: (_state, event) => ({ closedThrough: event.data.periodEnd }),
  decide: (command, state) => {
    if (state.closedThrough !== null && Date.parse(command.periodEnd) <= Date.parse(state.closedThrough)) return [];
    if (state.closedThrough !== null && command.periodStart !== state.closedThrough) {
      throw new DomainError('INVALID_STATE', `Usage is billed through ${state.closedThrough}; the next period starts there, not at ${command.periodStart}`);
    }
    if (Date.parse(command.periodEnd) <= Date.parse(command.periodStart)) throw new DomainError('BAD_REQUEST', 'A usage period must end after it starts');
    const amountCents = command.lines.reduce((s, l) => s + l.amountCents, 0);
    const { projectId, periodStart, periodEnd, currency, lines } = command;
    return [{ type: 'billing.UsagePeriodClosed.v1', data: { projectId, periodStart, periodEnd, currency, amountCents, lines, invoiceId: amountCents > 0 ? command.invoiceId : null, closedAt: command.now } }];
  },
};
