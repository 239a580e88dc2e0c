import { deciderSpec } from '../shared/decider-spec';
import type { InvoiceIssued, InvoicePaid, UsagePeriodClosed } from './events';
import { formatInvoiceNumber } from './events';
import { invoiceDecider, invoiceNumberDecider, type IssueInvoice } from './invoice.decider';
import { taxCentsOf } from './tax';
import { costIn, startedHours, usageBillingDecider, usageIn } from './usage';

const now = '2026-11-24T10:00:00.000Z';
const H = 3_600_000;

describe('tax: round(amountCents × taxRate), half away from zero, exact in decimal', () => {
  it.each([
    [1, 0.5, 1], // 0.5 → 1
    [3, 0.5, 2], // 1.5 → 2
    [5, 0.1, 1], // 0.5 → 1 (binary 0.5000000000000001)
    [15, 0.1, 2], // 1.5 → 2 (binary 1.5000000000000002)
    [105, 0.1, 11], // 10.5 → 11
    [1005, 0.07, 70], // 70.35 → 70
    [250, 0.07, 18], // 17.5 → 18 (binary 17.500000000000004)
    [10, 0.05, 1], // 0.5 → 1
    [1000, 0.075, 75],
    [2, 0.25, 1], // 0.5 → 1
    [6, 0.25, 2], // 1.5 → 2
    [333, 0.015, 5], // 4.995 → 5
    [100, 0.125, 13], // 12.5 → 13
    [9999, 0, 0],
    [9999, 1, 9999],
    [7, 1e-7, 0],
  ])('%i × %d = %i', (amount, rate, tax) => {
    expect(taxCentsOf(amount, rate)).toBe(tax);
  });

  it('rounds half away from zero where binary floating point rounds the other way', () => {
    expect(taxCentsOf(45, 0.1)).toBe(5);
    expect(taxCentsOf(201, 0.005)).toBe(1); // 1.005 → 1
    expect(taxCentsOf(300, 0.005)).toBe(2); // 1.5 → 2
    expect(taxCentsOf(-3, 0.5)).toBe(-2); // away from zero for a negative amount too
  });
});

describe('invoice decider', () => {
  const given = deciderSpec(invoiceDecider);
  const issue: IssueInvoice = {
    type: 'IssueInvoice',
    invoiceId: 'i1',
    projectId: 'p1',
    invoiceNumber: 'INV-2026-000001',
    currency: 'USD',
    amountCents: 1005,
    taxRate: 0.07,
    lineItems: [
      { description: 'a', quantity: 3, unitPriceCents: 300 },
      { description: 'b', quantity: 1, unitPriceCents: 105 },
    ],
    dueDate: '2026-12-24T00:00:00.000Z',
    metadata: {},
    source: { kind: 'request' },
    now,
  };
  const { type: _t, now: _n, ...issuedData } = issue;
  const issued: InvoiceIssued = { type: 'billing.InvoiceIssued.v1', data: { ...issuedData, taxCents: 70, totalCents: 1075, issuedAt: now } };
  const payment = { method: 'wallet' as const, debitId: 'd1', walletStream: 'wallet-p1-USD', debitEventId: 'e1', debitPosition: 7 };
  const paid: InvoicePaid = { type: 'billing.InvoicePaid.v1', data: { invoiceId: 'i1', projectId: 'p1', invoiceNumber: 'INV-2026-000001', currency: 'USD', totalCents: 1075, payment, paidAt: now } };
  const pay = { type: 'MarkInvoicePaid' as const, invoiceId: 'i1', projectId: 'p1', currency: 'USD' as const, amountCents: 1075, payment, now };

  it('issues a pending invoice with its tax and total', () => given([]).when(issue).then([issued]));
  it('refuses line items that do not add up to amountCents', () => given([]).when({ ...issue, amountCents: 1006 }).thenThrows('BAD_REQUEST', /add up to 1005/));
  it('refuses a second issue of the same id', () => given([issued]).when(issue).thenThrows('CONFLICT'));
  it('is paid once, naming the debit that paid it', () => given([issued]).when(pay).then([paid]));
  it('refuses paying a paid invoice (409 INVALID_STATE)', () => given([issued, paid]).when(pay).thenThrows('INVALID_STATE', /INV-2026-000001 is paid/));
  it('refuses a debit that does not cover the invoice exactly', () => {
    given([issued]).when({ ...pay, amountCents: 1 }).thenThrows('BAD_REQUEST', /does not pay it/);
    given([issued]).when({ ...pay, currency: 'NGN' }).thenThrows('BAD_REQUEST');
  });
  it("hides another project's invoice", () => given([issued]).when({ ...pay, projectId: 'p2' }).thenThrows('NOT_FOUND'));

  it('numbers INV-<year>-<6 digits> from the shared gapless sequence', () => {
    const numbers = deciderSpec(invoiceNumberDecider);
    const assigned = (sequence: number, invoiceId: string) => ({ type: 'billing.InvoiceNumberAssigned.v1' as const, data: { projectId: 'p1', invoiceId, sequence, number: formatInvoiceNumber(sequence, now), assignedAt: now } });
    numbers([]).when({ type: 'AssignNumber', projectId: 'p1', ownerId: 'a', now }).then([assigned(1, 'a')]);
    numbers([assigned(1, 'a'), assigned(2, 'b')]).when({ type: 'AssignNumber', projectId: 'p1', ownerId: 'c', now }).then([assigned(3, 'c')]);
    expect(formatInvoiceNumber(3, now)).toBe('INV-2026-000003');
  });
});

describe('usage: started hours while running', () => {
  const t0 = Date.parse('2026-11-24T22:30:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  it('counts every hour a run started, a partial last one included', () => {
    expect(startedHours({ from: iso(t0), to: iso(t0 + 1), hourlyPriceCents: 10 }, 0, Infinity, Infinity)).toBe(1);
    expect(startedHours({ from: iso(t0), to: iso(t0 + H), hourlyPriceCents: 10 }, 0, Infinity, Infinity)).toBe(1);
    expect(startedHours({ from: iso(t0), to: iso(t0 + H + 1), hourlyPriceCents: 10 }, 0, Infinity, Infinity)).toBe(2);
    expect(startedHours({ from: iso(t0), to: iso(t0), hourlyPriceCents: 10 }, 0, Infinity, Infinity)).toBe(0);
    // still running: until now
    expect(startedHours({ from: iso(t0), to: null, hourlyPriceCents: 10 }, 0, Infinity, t0 + 2.5 * H)).toBe(3);
  });

  it('puts an hour in the window and the UTC day it started in', () => {
    const run = { from: iso(t0), to: iso(t0 + 3 * H - 1), hourlyPriceCents: 7 }; // 22:30, 23:30 on the 24th; 00:30 on the 25th
    expect(usageIn([run], Date.parse('2026-11-24T00:00:00.000Z'), Date.parse('2026-11-27T00:00:00.000Z'), Infinity)).toEqual({
      hours: 3,
      costCents: 21,
      days: [
        { date: '2026-11-24', hours: 2, costCents: 14 },
        { date: '2026-11-25', hours: 1, costCents: 7 },
      ],
    });
    const midnight = Date.parse('2026-11-25T00:00:00.000Z');
    expect(costIn([run], 0, midnight, Infinity)).toEqual({ hours: 2, costCents: 14 });
    expect(costIn([run], midnight, Infinity, Infinity)).toEqual({ hours: 1, costCents: 7 });
  });
});

describe('usage periods: closed once each, in order', () => {
  const given = deciderSpec(usageBillingDecider);
  const line = { resourceType: 'instance' as const, resourceId: 'r1', name: 'web', plan: 'p', hours: 3, hourlyPriceCents: 7, amountCents: 21 };
  const close = { type: 'CloseUsagePeriod' as const, projectId: 'p1', periodStart: '2026-11-01T00:00:00.000Z', periodEnd: '2026-12-01T00:00:00.000Z', currency: 'USD' as const, lines: [line], invoiceId: 'inv', now };
  const closed: UsagePeriodClosed = { type: 'billing.UsagePeriodClosed.v1', data: { projectId: 'p1', periodStart: close.periodStart, periodEnd: close.periodEnd, currency: 'USD', amountCents: 21, lines: [line], invoiceId: 'inv', closedAt: now } };

  it('closes a period with its amount and the invoice that bills it', () => given([]).when(close).then([closed]));
  it('closes an empty period without an invoice', () => given([]).when({ ...close, lines: [] }).then([{ ...closed, data: { ...closed.data, lines: [], amountCents: 0, invoiceId: null } }]));
  it('does nothing for a period already closed (a second run)', () => given([closed]).when(close).thenNothingHappens());
  it('refuses a period that leaves a hole', () => given([closed]).when({ ...close, periodStart: '2027-01-01T00:00:00.000Z', periodEnd: '2027-02-01T00:00:00.000Z' }).thenThrows('INVALID_STATE'));
});
