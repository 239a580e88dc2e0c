import type { DomainEvent } from '../shared/domain-error';
import { sixDigits } from '../shared/number-sequence';

export const CURRENCIES = ['USD', 'NGN'] as const;
export type Currency = (typeof CURRENCIES)[number];
/** The currency usage accrues in: compute plans record their hourly price in USD (DECISIONS 16: the project's billing currency). */
export const USAGE_CURRENCY: Currency = 'USD';

export const INVOICE_STATUSES = ['pending', 'paid'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** One line: `quantity × unitPriceCents` is its amount; the lines add up to the invoice's `amountCents`. */
export interface InvoiceLineItem {
  description: string;
  quantity: number;
  unitPriceCents: number;
}

/** Why an invoice exists: a client's POST, or the month-end run over a usage period. */
export type InvoiceSource = { kind: 'request' } | { kind: 'usage'; periodStart: string; periodEnd: string };

/** What paid an invoice: a debit of the project's wallet in the invoice's currency (its event id and position link the two). */
export interface InvoicePayment {
  method: 'wallet';
  /** The wallet debit's id (the debit's own event names this invoice as its reference). */
  debitId: string;
  walletStream: string;
  /** The event recording the debit, and its position in the log. */
  debitEventId: string | null;
  debitPosition: number | null;
}

export type InvoiceNumberAssigned = DomainEvent<'billing.InvoiceNumberAssigned.v1', { projectId: string; invoiceId: string; sequence: number; number: string; assignedAt: string }>;

export type InvoiceIssued = DomainEvent<
  'billing.InvoiceIssued.v1',
  {
    invoiceId: string;
    projectId: string;
    invoiceNumber: string;
    currency: Currency;
    amountCents: number;
    taxRate: number;
    taxCents: number;
    totalCents: number;
    lineItems: InvoiceLineItem[];
    dueDate: string;
    metadata: Record<string, unknown>;
    source: InvoiceSource;
    issuedAt: string;
  }
>;
export type InvoicePaid = DomainEvent<
  'billing.InvoicePaid.v1',
  { invoiceId: string; projectId: string; invoiceNumber: string; currency: Currency; totalCents: number; payment: InvoicePayment; paidAt: string }
>;
export type InvoiceEvent = InvoiceIssued | InvoicePaid;

/** One resource's charge in a closed usage period: its started hours at its hourly price. */
export interface UsageLine {
  /** `gateway`: a model's inference gateway spend in the period (quantity 1 at its cost; `gateway` has its counts). */
  resourceType: 'instance' | 'server' | 'gateway';
  resourceId: string;
  name: string;
  plan: string;
  hours: number;
  hourlyPriceCents: number;
  amountCents: number;
  gateway?: { requests: number; inputTokens: number; outputTokens: number };
}

/**
 * The month-end run closed a usage period of a project: what accrued in it, per resource, and the
 * invoice that bills it (null when nothing accrued). Closing is once per period (the project's
 * billing stream refuses a period it already closed), so a restart never invoices twice.
 */
export type UsagePeriodClosed = DomainEvent<
  'billing.UsagePeriodClosed.v1',
  { projectId: string; periodStart: string; periodEnd: string; currency: Currency; amountCents: number; lines: UsageLine[]; invoiceId: string | null; closedAt: string }
>;

export const InvoicingEventTypes = {
  InvoiceNumberAssigned: 'billing.InvoiceNumberAssigned.v1',
  InvoiceIssued: 'billing.InvoiceIssued.v1',
  InvoicePaid: 'billing.InvoicePaid.v1',
  UsagePeriodClosed: 'billing.UsagePeriodClosed.v1',
} as const;

export const invoiceStream = (invoiceId: string) => `invoice-${invoiceId}`;
/** A project's invoice-number sequence (category `invoice`: the billing context's topic). */
export const invoiceNumbersStream = (projectId: string) => `invoice-numbers-${projectId}`;
/** A project's usage periods closed by the month-end run. */
export const usageBillingStream = (projectId: string) => `invoice-usage-${projectId}`;

/** `INV-<year of issue>-<6-digit sequence per project>` (DECISIONS 9); the sequence never restarts. */
export const formatInvoiceNumber = (sequence: number, issuedAt: string) => `INV-${issuedAt.slice(0, 4)}-${sixDigits(sequence)}`;
