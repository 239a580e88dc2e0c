import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { recordInvoicePayment } from '../../usecases/invoicing/record-invoice-payment';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';

export const INVOICE_PAYMENTS = 'saga:invoice-payments';
/** The wallet debit → InvoicePaid process manager: a pay request whose answer was cut off (a crash after the debit) still marks its invoice paid. */
export class InvoicePayments implements SubscriptionHandler {
  readonly name = INVOICE_PAYMENTS;

  constructor(private readonly events: EventStore) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let changed = false;
    for (const e of batch) if ((await recordInvoicePayment(this.events, e)) !== null) changed = true;
    return changed;
  }
}
