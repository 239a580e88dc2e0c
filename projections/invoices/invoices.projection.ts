import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { z } from 'zod';
import { InvoicingEventTypes, type InvoiceEvent } from '../../libs/domain/invoicing/events';
import type { INVOICE } from '../../libs/domain/invoicing/invoice.fields';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** The issued invoice's data (flat, spec 2.9), its status and payment: its declared fields (INVOICE). */
export type InvoiceDoc = ReadDoc & z.output<typeof INVOICE.stored>;

export const INVOICES_LIST: ListShape = { query: 'GET /v1/invoices', equal: ['projectId'], residual: ['status', 'currency'], sortable: ['createdAt', 'dueDate', 'status', 'invoiceNumber', 'totalCents'] };
const LISTS: ListShape[] = [INVOICES_LIST];

/** Serves GET /v1/invoices, /v1/iam/invoices and every invoice answer. */
export const invoicesProjection: DocumentProjection<InvoiceDoc> = {
  name: 'invoices',
  version: 1,
  eventTypes: [InvoicingEventTypes.InvoiceIssued, InvoicingEventTypes.InvoicePaid],
  creates: [InvoicingEventTypes.InvoiceIssued],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { invoiceId: string }).invoiceId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as InvoiceEvent;
    switch (event.type) {
      case 'billing.InvoiceIssued.v1': {
        const { invoiceId, issuedAt, ...d } = event.data;
        return { id: invoiceId, _position: recorded.position, ...d, status: 'pending', paidAt: null, payment: null, createdAt: issuedAt, updatedAt: issuedAt };
      }
      case 'billing.InvoicePaid.v1':
        return current && { ...current, _position: recorded.position, status: 'paid', paidAt: event.data.paidAt, payment: event.data.payment, updatedAt: event.data.paidAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
