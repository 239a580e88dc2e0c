import { DomainError, type Decider } from '../shared/domain-error';
import { numberSequenceDecider } from '../shared/number-sequence';
import { InvoicingEventTypes, formatInvoiceNumber, type Currency, type InvoiceEvent, type InvoiceIssued, type InvoicePayment, type InvoiceStatus } from './events';
import { lineItemsTotal, taxCentsOf } from './tax';

export type InvoiceState =
  | { status: 'none' }
  | { status: InvoiceStatus; invoiceId: string; projectId: string; invoiceNumber: string; currency: Currency; totalCents: number; payment: InvoicePayment | null };

/** An invoice as decided: its data but the amounts derived from it (tax, total) and the issue time. */
export type IssueInvoice = { type: 'IssueInvoice'; now: string } & Omit<InvoiceIssued['data'], 'taxCents' | 'totalCents' | 'issuedAt'>;
/**
 * Payment is recorded from the wallet debit that paid it (appended first, source `invoice`, reference
 * the invoice id), with that debit's currency and amount: a debit that does not cover the invoice
 * exactly pays nothing.
 */
export type MarkInvoicePaid = { type: 'MarkInvoicePaid'; invoiceId: string; projectId: string; currency: Currency; amountCents: number; payment: InvoicePayment; now: string };
export type InvoiceCommand = IssueInvoice | MarkInvoicePaid;

type Issued = Exclude<InvoiceState, { status: 'none' }>;

/** Another project's invoice is indistinguishable from a missing one. */
export function existingInvoice(state: InvoiceState, projectId: string): Issued {
  if (state.status === 'none' || state.projectId !== projectId) throw new DomainError('NOT_FOUND', 'Invoice not found');
  return state;
}

/** Paying is allowed only from pending (DECISIONS 9: paying a paid invoice is 409 INVALID_STATE). */
export function refuseUnpayable(state: Issued): void {
  if (state.status !== 'pending') throw new DomainError('INVALID_STATE', `Invoice ${state.invoiceNumber} is ${state.status}: only a pending invoice can be paid`);
}

/** The invariants of an invoice's amounts (the request schema checks them too; the domain does not trust it). */
function checkAmounts(c: IssueInvoice): void {
  if (!Number.isSafeInteger(c.amountCents) || c.amountCents <= 0) throw new DomainError('BAD_REQUEST', 'amountCents must be a positive integer');
  if (!(c.taxRate >= 0 && c.taxRate <= 1)) throw new DomainError('BAD_REQUEST', 'taxRate must be between 0 and 1');
  if (c.lineItems.length > 0 && lineItemsTotal(c.lineItems) !== c.amountCents) {
    throw new DomainError('BAD_REQUEST', `lineItems add up to ${lineItemsTotal(c.lineItems)} cents, not amountCents ${c.amountCents}`);
  }
}

export const invoiceDecider: Decider<InvoiceCommand, InvoiceEvent, InvoiceState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'billing.InvoiceIssued.v1': {
        const { invoiceId, projectId, invoiceNumber, currency, totalCents } = event.data;
        return { status: 'pending', invoiceId, projectId, invoiceNumber, currency, totalCents, payment: null };
      }
      case 'billing.InvoicePaid.v1':
        return state.status === 'none' ? state : { ...state, status: 'paid', payment: event.data.payment };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueInvoice': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Invoice ${command.invoiceId} already exists`);
        checkAmounts(command);
        const { type: _t, now, ...data } = command;
        const taxCents = taxCentsOf(command.amountCents, command.taxRate);
        return [{ type: 'billing.InvoiceIssued.v1', data: { ...data, taxCents, totalCents: command.amountCents + taxCents, issuedAt: now } }];
      }
      case 'MarkInvoicePaid': {
        const invoice = existingInvoice(state, command.projectId);
        refuseUnpayable(invoice);
        if (command.currency !== invoice.currency || command.amountCents !== invoice.totalCents) {
          throw new DomainError('BAD_REQUEST', `Invoice ${invoice.invoiceNumber} is ${invoice.totalCents} ${invoice.currency}; a debit of ${command.amountCents} ${command.currency} does not pay it`);
        }
        const { invoiceId, projectId, invoiceNumber, currency, totalCents } = invoice;
        return [{ type: 'billing.InvoicePaid.v1', data: { invoiceId, projectId, invoiceNumber, currency, totalCents, payment: command.payment, paidAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

/** A project's invoice numbers: the shared gapless sequence, `INV-<year>-<n>`. */
export const invoiceNumberDecider = numberSequenceDecider({ eventType: InvoicingEventTypes.InvoiceNumberAssigned, ownerField: 'invoiceId', format: formatInvoiceNumber });
