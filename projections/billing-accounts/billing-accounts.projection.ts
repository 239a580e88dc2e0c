import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { InvoicingEventTypes, type InvoiceEvent, type UsagePeriodClosed } from '../../libs/domain/invoicing/events';
import { isBilledScope } from '../../libs/domain/shared/scope';
import { startOfNextMonth } from '../../libs/domain/invoicing/usage';
import type { InstanceRequested } from '../../libs/domain/compute/instance.events';
import type { ServerRequested } from '../../libs/domain/servers/server.events';
import type { UsageRecorded } from '../../libs/domain/gateway/events';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/**
 * A project's billing summary (id: the project id): where usage billing stands and the invoice sums
 * of the overview (spec 2.10). `nextRunAt` is the month-end run's durable timer: the first instant
 * of the month after the last closed period (or after the first metered resource); projected from
 * events, so a restart or rebuild re-arms it by itself.
 */
export interface BillingAccountDoc extends ReadDoc {
  projectId: string;
  /** When the project's first compute resource was requested (or its first gateway call recorded): usage billing starts with that month. */
  meteredSince: string | null;
  /** End of the last closed usage period (exclusive); usage before it is invoiced. */
  invoicedThrough: string | null;
  nextRunAt: string | null;
  /** `nextRunAt !== null`: the run's poll filters on this equality key (FerretDB pushes only equality down). */
  runArmed: boolean;
  invoiceCount: number;
  /** Totals of paid invoices per currency. */
  paidCents: Record<string, number>;
  paidCount: number;
  createdAt: string;
}

const LISTS: ListShape[] = [{ query: 'month-end run poll (sagas/usage-invoicing)', equal: ['runArmed'], residual: ['nextRunAt'], sorts: [[{ field: 'nextRunAt', direction: 1 }]] }];

const empty = (projectId: string, at: string, position: number): BillingAccountDoc => ({
  id: projectId,
  _position: position,
  projectId,
  meteredSince: null,
  invoicedThrough: null,
  nextRunAt: null,
  runArmed: false,
  invoiceCount: 0,
  paidCents: {},
  paidCount: 0,
  createdAt: at,
});

/** The month-end run's timer; never armed for a test-mode scope, whose usage is not billed (DECISIONS 21). */
function armed(doc: BillingAccountDoc): BillingAccountDoc {
  const from = isBilledScope(doc.projectId) ? (doc.invoicedThrough ?? doc.meteredSince) : null;
  const nextRunAt = from === null ? null : new Date(startOfNextMonth(Date.parse(from))).toISOString();
  return { ...doc, nextRunAt, runArmed: nextRunAt !== null };
}

type Fed = InvoiceEvent | UsagePeriodClosed | InstanceRequested | ServerRequested | UsageRecorded;

export const billingAccountsProjection: DocumentProjection<BillingAccountDoc> = {
  name: 'billing_accounts',
  version: 2,
  eventTypes: ['compute.InstanceRequested.v1', 'compute.ServerRequested.v1', 'gateway.UsageRecorded.v1', InvoicingEventTypes.InvoiceIssued, InvoicingEventTypes.InvoicePaid, InvoicingEventTypes.UsagePeriodClosed],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { projectId?: string }).projectId ?? null,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as Fed;
    const doc = { ...(current ?? empty(event.data.projectId, recorded.recordedAt, recorded.position)), _position: recorded.position };
    switch (event.type) {
      case 'compute.InstanceRequested.v1':
      case 'compute.ServerRequested.v1':
        return doc.meteredSince === null ? armed({ ...doc, meteredSince: event.data.requestedAt }) : doc;
      case 'gateway.UsageRecorded.v1':
        // Gateway spend is billed with the project's usage (DECISIONS 19): a project that only calls models is metered too.
        return doc.meteredSince === null && event.data.costMicros > 0 ? armed({ ...doc, meteredSince: event.data.recordedAt }) : doc;
      case 'billing.UsagePeriodClosed.v1':
        return armed({ ...doc, invoicedThrough: event.data.periodEnd });
      case 'billing.InvoiceIssued.v1':
        return { ...doc, invoiceCount: doc.invoiceCount + 1 };
      case 'billing.InvoicePaid.v1': {
        const { currency, totalCents } = event.data;
        return { ...doc, paidCount: doc.paidCount + 1, paidCents: { ...doc.paidCents, [currency]: (doc.paidCents[currency] ?? 0) + totalCents } };
      }
      default:
        return current;
    }
  },
};
