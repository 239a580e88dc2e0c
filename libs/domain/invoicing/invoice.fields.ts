import { z } from 'zod';
import { resourceFields } from '../shared/resource-fields';
import { projectOfScope } from '../shared/scope';
import { CURRENCIES, INVOICE_STATUSES, type InvoicePayment, type InvoiceSource } from './events';

export const lineItemSchema = z.object({
  description: z.string().min(1).max(500),
  quantity: z.number().int().min(1).max(1_000_000),
  unitPriceCents: z.number().int().min(0).max(1_000_000_000_000),
});

const payment = z.object({
  method: z.literal('wallet'),
  debitId: z.string(),
  walletStream: z.string(),
  debitEventId: z.string().nullable(),
  debitPosition: z.number().nullable(),
}) satisfies z.ZodType<InvoicePayment>;
const source = z.union([z.object({ kind: z.literal('request') }), z.object({ kind: z.literal('usage'), periodStart: z.string(), periodEnd: z.string() })]) satisfies z.ZodType<InvoiceSource>;

/**
 * An invoice's fields (spec 2.9: a flat record): its read model's document, its create's body and
 * its answers. The answer shows the project without its test-mode suffix, the payment by its debit's
 * id, and the source as a kind and a usage period.
 */
export const INVOICE = resourceFields(
  z.object({
    id: z.string(),
    invoiceNumber: z.string().describe('INV-<year of issue>-<6-digit sequence per project>, without gaps (DECISIONS 9)'),
    projectId: z.string(),
    currency: z.enum(CURRENCIES),
    amountCents: z.number().int().describe('The subtotal before tax'),
    taxRate: z.number().min(0).max(1),
    taxCents: z.number().int().describe('round(amountCents × taxRate), half away from zero'),
    totalCents: z.number().int().describe('amountCents + taxCents'),
    lineItems: z.array(lineItemSchema),
    status: z.enum(INVOICE_STATUSES),
    dueDate: z.string(),
    paidAt: z.string().nullable().describe('When it was paid (the payment timestamp of spec 2.9)'),
    payment: payment.nullable(),
    source,
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  {
    shape: {
      projectId: z.string(),
      paymentId: z.string().nullable().describe('The wallet debit that paid it'),
      source: z.enum(['request', 'usage']).describe('usage: issued by the month-end run for a usage period'),
      usagePeriod: z.object({ start: z.string(), end: z.string() }).nullable(),
    },
    replaces: ['payment'],
    from: (d) => ({
      projectId: projectOfScope(d.projectId),
      paymentId: d.payment?.debitId ?? null,
      source: d.source.kind,
      usagePeriod: d.source.kind === 'usage' ? { start: d.source.periodStart, end: d.source.periodEnd } : null,
    }),
  },
);
