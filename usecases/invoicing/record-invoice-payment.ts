import type { WalletDebited } from '../../libs/domain/billing/events';
import { invoiceStream } from '../../libs/domain/invoicing/events';
import { invoiceDecider } from '../../libs/domain/invoicing/invoice.decider';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand } from '../../libs/eventstore/src/handle-command';

const isInvoiceDebit = (e: RecordedEvent): boolean => e.type === 'billing.WalletDebited.v1' && (e.data as WalletDebited['data']).source === 'invoice';

/**
 * Records `InvoicePaid` from the wallet debit that paid the invoice (source `invoice`, reference the
 * invoice id): the event names the debit (id, wallet stream, event id, position) and is caused by it
 * (`causationId` = the debit event's id), so the two are linked both ways. Idempotent: an invoice
 * already paid, or a debit that does not match it, records nothing. Returns the position written.
 */
export async function recordInvoicePayment(events: EventStore, debit: RecordedEvent): Promise<number | null> {
  if (!isInvoiceDebit(debit)) return null;
  const d = debit.data as WalletDebited['data'];
  const command = {
    type: 'MarkInvoicePaid' as const,
    invoiceId: d.reference,
    projectId: d.projectId,
    currency: d.currency,
    amountCents: d.amountCents,
    payment: { method: 'wallet' as const, debitId: d.debitId, walletStream: debit.streamId, debitEventId: debit.id, debitPosition: debit.position },
    now: d.debitedAt,
  };
  const context = { metadata: causedBy(debit, { projectId: d.projectId, actor: 'system:invoice-payments' }) };
  try {
    return (await handleCommand(events, invoiceStream(d.reference), invoiceDecider, command, context)).position;
  } catch (err) {
    if (err instanceof DomainError && ['INVALID_STATE', 'NOT_FOUND', 'BAD_REQUEST'].includes(err.code)) return null;
    throw err;
  }
}
