import { InvoicingEventTypes, invoiceStream, type UsagePeriodClosed } from '../../libs/domain/invoicing/events';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy } from '../../libs/eventstore/src/handle-command';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';
import { issueInvoice } from '../../usecases/invoicing/issue-invoice';

/** Days between a usage period's end and its invoice's due date. */
export const USAGE_INVOICE_TERMS_DAYS = 14;

/**
 * Issues the invoice of each closed usage period that accrued something: one line per resource
 * (`<type> <name> (<plan>): <hours> h`, quantity the started hours, unit price the hourly price), tax
 * 0, due 14 days after the period. Idempotent on replay: the invoice's id comes from the event, and
 * an invoice stream that exists is left alone (checked before a number is taken).
 */
export class UsageInvoicer implements SubscriptionHandler {
  readonly name = 'saga:usage-invoicer';

  constructor(private readonly events: EventStore) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let changed = false;
    for (const e of batch) {
      if (e.type !== InvoicingEventTypes.UsagePeriodClosed) continue;
      const d = e.data as UsagePeriodClosed['data'];
      if (d.invoiceId === null || (await this.events.readStream(invoiceStream(d.invoiceId))).length > 0) continue;
      const due = new Date(Date.parse(d.periodEnd) + USAGE_INVOICE_TERMS_DAYS * 86_400_000).toISOString();
      const period = `from ${d.periodStart.slice(0, 10)} to ${d.periodEnd.slice(0, 10)}`;
      const lineItems = d.lines.map((l) =>
        l.resourceType === 'gateway'
          ? { description: `inference gateway ${l.name}: ${l.gateway?.requests ?? 0} calls, ${l.gateway?.inputTokens ?? 0} input and ${l.gateway?.outputTokens ?? 0} output tokens ${period}`, quantity: 1, unitPriceCents: l.amountCents }
          : { description: `${l.resourceType} ${l.name} (${l.plan}): ${l.hours} h ${period}`, quantity: l.hours, unitPriceCents: l.hourlyPriceCents },
      );
      const context = { metadata: causedBy(e, { projectId: d.projectId, actor: 'system:month-end-run' }) };
      await issueInvoice(
        this.events,
        {
          invoiceId: d.invoiceId,
          projectId: d.projectId,
          currency: d.currency,
          amountCents: d.amountCents,
          taxRate: 0,
          lineItems,
          dueDate: due,
          metadata: { usagePeriodStart: d.periodStart, usagePeriodEnd: d.periodEnd },
          source: { kind: 'usage', periodStart: d.periodStart, periodEnd: d.periodEnd },
          now: d.closedAt,
        },
        context,
      );
      changed = true;
    }
    return changed;
  }
}
