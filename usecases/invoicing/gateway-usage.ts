import type { UsageLine } from '../../libs/domain/invoicing/events';
import { startOfMonth, startOfNextMonth } from '../../libs/domain/invoicing/usage';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { GatewaySpendDoc } from '../../projections/gateway-usage/gateway-usage.projection';

const PAGE = 500;
const DAY_MS = 86_400_000;

/** Micro-dollars to cents, rounded up: a fraction of a cent is never given away (as the gateway's own pricing). */
export const microsToCents = (micros: number): number => Math.ceil(micros / 10_000);

/** A project's inference gateway usage of one model in a window (DECISIONS 19: spend flows into the project's billing). */
export interface GatewayModelUsage {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  costCents: number;
  days: { date: string; costCents: number }[];
}

/**
 * The gateway spend of a project in [start, end), per model: the sum of its usage events (the spend
 * read model adds each once), by the UTC day of each call. A day counts whole in the window that holds
 * its start, so month windows (invoices) are exact.
 */
export async function gatewayUsageOf(spend: ReadCollection<GatewaySpendDoc>, projectId: string, start: number, end: number): Promise<GatewayModelUsage[]> {
  const from = new Date(Math.ceil(start / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
  const until = new Date(Math.ceil(end / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
  const byModel = new Map<string, { requests: number; inputTokens: number; outputTokens: number; costMicros: number; days: Map<string, number> }>();
  for (let skip = 0; ; skip += PAGE) {
    const { items } = await spend.find({ filter: { projectId, day: { $gte: from, $lt: until } } as never, sort: [{ field: 'day', direction: 1 }], skip, limit: PAGE, withTotal: false });
    for (const d of items) {
      const m = byModel.get(d.model) ?? { requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0, days: new Map<string, number>() };
      m.requests += d.requests;
      m.inputTokens += d.inputTokens;
      m.outputTokens += d.outputTokens;
      m.costMicros += d.costMicros;
      m.days.set(d.day, (m.days.get(d.day) ?? 0) + d.costMicros);
      byModel.set(d.model, m);
    }
    if (items.length < PAGE) break;
  }
  return [...byModel.entries()]
    .filter(([, m]) => m.requests > 0)
    .map(([model, m]) => ({
      model,
      requests: m.requests,
      inputTokens: m.inputTokens,
      outputTokens: m.outputTokens,
      costMicros: m.costMicros,
      costCents: microsToCents(m.costMicros),
      days: [...m.days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, micros]) => ({ date, costCents: microsToCents(micros) })),
    }));
}

/** A closed period's gateway lines: one per model that cost something, quantity 1 at its cost. */
export const gatewayLines = (usage: readonly GatewayModelUsage[]): UsageLine[] =>
  usage
    .filter((u) => u.costCents > 0)
    .map((u) => ({ resourceType: 'gateway', resourceId: u.model, name: u.model, plan: 'inference', hours: 1, hourlyPriceCents: u.costCents, amountCents: u.costCents, gateway: { requests: u.requests, inputTokens: u.inputTokens, outputTokens: u.outputTokens } }));

/**
 * The gateway spend accrued and not yet invoiced (DECISIONS 16, the overview's upcoming charges): from
 * the end of the last closed period (else the start of the month metering began; else all of it) until
 * now, month by month, as the month-end run will invoice each month (whole cents per model, rounded up).
 */
export async function upcomingGatewayCents(spend: ReadCollection<GatewaySpendDoc>, projectId: string, invoicedThrough: string | null, meteredSince: string | null, now: number): Promise<number> {
  const total = (usage: readonly GatewayModelUsage[]) => gatewayLines(usage).reduce((n, l) => n + l.amountCents, 0);
  const since = invoicedThrough ? Date.parse(invoicedThrough) : meteredSince ? startOfMonth(Date.parse(meteredSince)) : null;
  if (since === null) return total(await gatewayUsageOf(spend, projectId, 0, now + 1));
  let cents = 0;
  for (let start = since; start <= now; start = startOfNextMonth(start)) cents += total(await gatewayUsageOf(spend, projectId, start, Math.min(startOfNextMonth(start), now + 1)));
  return cents;
}
