import type { UsageLine } from '../../libs/domain/invoicing/events';
import { costIn, usageIn, type UsageDay } from '../../libs/domain/invoicing/usage';
import type { Filter, ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { UsageMeterDoc } from '../../projections/usage-meters/usage-meters.projection';

const PAGE = 500;

/** Every meter of a project that had started running before `before` (all of them without it), oldest first. */
export async function projectMeters(meters: ReadCollection<UsageMeterDoc>, projectId: string, before?: number): Promise<UsageMeterDoc[]> {
  const filter: Filter = { projectId };
  if (before !== undefined) filter.firstRunAt = { $lt: new Date(before).toISOString() };
  const out: UsageMeterDoc[] = [];
  // Each page seeks past the last one on the [projectId, createdAt, id] index (no skip over the pages before).
  for (let after: UsageMeterDoc | undefined; ; ) {
    const { items } = await meters.find({ filter, sort: [{ field: 'createdAt', direction: 1 }], limit: PAGE, withTotal: false, ...(after ? { after } : {}) });
    out.push(...items);
    if (items.length < PAGE) return out;
    after = items[items.length - 1];
  }
}

export interface ResourceUsage {
  meter: UsageMeterDoc;
  hours: number;
  costCents: number;
  days: UsageDay[];
}

/** Each meter's started hours and cost in [start, end), per UTC day; meters with no hour there are left out. */
export function usageOf(meters: UsageMeterDoc[], start: number, end: number, now: number): ResourceUsage[] {
  return meters.map((meter) => ({ meter, ...usageIn(meter.runs, start, end, now) })).filter((u) => u.hours > 0);
}

/** A closed period's lines: one per resource that ran in it, `hours × hourlyPriceCents` each (a run's own price). */
export function usageLines(meters: UsageMeterDoc[], start: number, end: number, now: number): UsageLine[] {
  const lines: UsageLine[] = [];
  for (const m of meters) {
    // A resource repriced in the period (a server's plan change) gives one line per price.
    const prices = [...new Set(m.runs.map((r) => r.hourlyPriceCents))];
    for (const price of prices) {
      const { hours, costCents } = costIn(m.runs.filter((r) => r.hourlyPriceCents === price), start, end, now);
      if (hours > 0) lines.push({ resourceType: m.resourceType, resourceId: m.id, name: m.name, plan: m.plan, hours, hourlyPriceCents: price, amountCents: costCents });
    }
  }
  return lines;
}

/** Accrued and not yet invoiced (DECISIONS 16): the cost of every hour started from `invoicedThrough` (all of them without one) until now. */
export function upcomingChargesCents(meters: UsageMeterDoc[], invoicedThrough: string | null, now: number): number {
  const from = invoicedThrough === null ? 0 : Date.parse(invoicedThrough);
  return meters.reduce((sum, m) => sum + costIn(m.runs, from, now + 1, now).costCents, 0);
}
