import { streamRecorder } from '../../test/support/fixtures';
import { logRecorder, projected } from '../../test/support/projector';
import { invoicesProjection } from './invoices.projection';

const issuedAt = '2026-03-01T00:00:00.000Z';
const paidAt = '2026-03-05T12:00:00.000Z';
const issued = {
  projectId: 'p1',
  invoiceNumber: 'INV-2026-000001',
  currency: 'USD',
  amountCents: 1000,
  taxRate: 0.075,
  taxCents: 75,
  totalCents: 1075,
  lineItems: [{ description: 'instance web (t3.medium): 250 h', quantity: 250, unitPriceCents: 4 }],
  dueDate: '2026-03-15T00:00:00.000Z',
  metadata: { usagePeriodStart: '2026-02-01T00:00:00.000Z' },
  source: { kind: 'usage', periodStart: '2026-02-01T00:00:00.000Z', periodEnd: '2026-03-01T00:00:00.000Z' },
  issuedAt,
};
const payment = { method: 'wallet', debitId: 'd1', walletStream: 'wallet-p1-USD', debitEventId: 'ev-debit', debitPosition: 41 };
const paid = { projectId: 'p1', invoiceNumber: 'INV-2026-000001', currency: 'USD', totalCents: 1075, payment, paidAt };

describe('invoices read model', () => {
  it('shows an issued invoice as pending, with its amounts, lines and source as issued', async () => {
    const r = streamRecorder('invoice-inv1', { invoiceId: 'inv1' });
    const model = await projected(invoicesProjection);
    await model.handle(r('billing.InvoiceIssued.v1', issued));
    const { issuedAt: _issued, ...rest } = issued;
    expect(await model.get('inv1')).toEqual({ id: 'inv1', _position: 1, ...rest, status: 'pending', paidAt: null, payment: null, createdAt: issuedAt, updatedAt: issuedAt });
  });

  it('marks it paid by the wallet debit that paid it, keeping what was issued', async () => {
    const r = streamRecorder('invoice-inv1', { invoiceId: 'inv1' });
    const model = await projected(invoicesProjection);
    await model.handle(r('billing.InvoiceIssued.v1', issued), r('billing.InvoicePaid.v1', paid));
    expect(await model.get('inv1')).toMatchObject({ _position: 2, status: 'paid', paidAt, payment, totalCents: 1075, amountCents: 1000, invoiceNumber: 'INV-2026-000001', createdAt: issuedAt, updatedAt: paidAt });
  });

  it('changes nothing when the log hands the same events again (a replay after a crash)', async () => {
    const r = streamRecorder('invoice-inv1', { invoiceId: 'inv1' });
    const events = [r('billing.InvoiceIssued.v1', issued), r('billing.InvoicePaid.v1', paid)];
    const model = await projected(invoicesProjection);
    await model.handle(...events);
    const once = await model.get('inv1');
    model.restart();
    // The issue event `creates` its document: replayed alone it starts the invoice afresh, and the
    // payment that follows it in the replay brings it forward again.
    await model.handle(...events);
    expect(await model.get('inv1')).toEqual(once);
    expect(await model.handle(events[1])).toBe(false);
    expect(await model.get('inv1')).toEqual(once);
  });

  it('creates no invoice from the payment of one it never saw issued', async () => {
    const r = streamRecorder('invoice-inv2', { invoiceId: 'inv2' });
    const model = await projected(invoicesProjection);
    r('billing.InvoiceIssued.v1', issued);
    await model.handle(r('billing.InvoicePaid.v1', paid));
    expect(await model.all()).toEqual([]);
  });

  it('keeps invoices apart by their id and lists them per project', async () => {
    const log = logRecorder();
    const a = log.stream('invoice-a', { invoiceId: 'a' });
    const b = log.stream('invoice-b', { invoiceId: 'b' });
    const c = log.stream('invoice-c', { invoiceId: 'c' });
    const model = await projected(invoicesProjection);
    await model.handle(a('billing.InvoiceIssued.v1', issued), b('billing.InvoiceIssued.v1', { ...issued, invoiceNumber: 'INV-2026-000002' }), c('billing.InvoiceIssued.v1', { ...issued, projectId: 'p2' }), a('billing.InvoicePaid.v1', paid));
    const { items } = await model.collection.find({ filter: { projectId: 'p1' }, sort: [{ field: 'createdAt', direction: -1 }] });
    expect(items.map((d) => [d.id, d.invoiceNumber, d.status])).toEqual([
      ['a', 'INV-2026-000001', 'paid'],
      ['b', 'INV-2026-000002', 'pending'],
    ]);
  });
});
