import { instanceSpec } from '../../test/support/fixtures';
import { logRecorder, projected } from '../../test/support/projector';
import { billingAccountsProjection } from './billing-accounts.projection';

const usagePeriod = (periodStart: string, periodEnd: string, invoiceId: string | null = null) => ({ periodStart, periodEnd, currency: 'USD', amountCents: invoiceId ? 100 : 0, lines: [], invoiceId, closedAt: periodEnd });
const invoice = { invoiceNumber: 'INV-2026-000001', currency: 'USD', totalCents: 1075 };

describe('billing accounts read model: the month-end run timer and invoice sums', () => {
  it('arms the run for the month after the first metered resource, and ignores later ones', async () => {
    const log = logRecorder();
    const i1 = log.stream('instance-i1', { instanceId: 'i1', jobId: 'j1' });
    const s1 = log.stream('server-s1', { serverId: 's1', jobId: 'j2' });
    const model = await projected(billingAccountsProjection);
    await model.handle(i1('compute.InstanceRequested.v1', { ...instanceSpec({ projectId: 'p1' }), requestedAt: '2026-01-20T10:00:00.000Z' }));
    expect(await model.get('p1')).toMatchObject({ projectId: 'p1', meteredSince: '2026-01-20T10:00:00.000Z', invoicedThrough: null, nextRunAt: '2026-02-01T00:00:00.000Z', runArmed: true });
    await model.handle(s1('compute.ServerRequested.v1', { projectId: 'p1', name: 'db', plan: { slug: 'small', name: 'Small' }, hourlyPriceCents: 100, requestedAt: '2026-03-02T00:00:00.000Z', restoredFromBackup: null }));
    expect(await model.get('p1')).toMatchObject({ meteredSince: '2026-01-20T10:00:00.000Z', nextRunAt: '2026-02-01T00:00:00.000Z' });
  });

  it('moves the timer to the month after each closed period (December into January)', async () => {
    const log = logRecorder();
    const i1 = log.stream('instance-i1', { instanceId: 'i1', jobId: 'j1' });
    const usage = log.stream('invoice-usage-p1', { projectId: 'p1' });
    const model = await projected(billingAccountsProjection);
    await model.handle(i1('compute.InstanceRequested.v1', { ...instanceSpec({ projectId: 'p1' }), requestedAt: '2026-11-03T00:00:00.000Z' }));
    await model.handle(usage('billing.UsagePeriodClosed.v1', usagePeriod('2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z')));
    expect(await model.get('p1')).toMatchObject({ invoicedThrough: '2026-12-01T00:00:00.000Z', nextRunAt: '2027-01-01T00:00:00.000Z', runArmed: true });
    await model.handle(usage('billing.UsagePeriodClosed.v1', usagePeriod('2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z')));
    expect(await model.get('p1')).toMatchObject({ invoicedThrough: '2027-01-01T00:00:00.000Z', nextRunAt: '2027-02-01T00:00:00.000Z' });
    // The run's poll: armed accounts due by a time, oldest first.
    const due = await model.collection.find({ filter: { runArmed: true, nextRunAt: { $lte: '2027-02-01T00:00:00.000Z' } }, sort: [{ field: 'nextRunAt', direction: 1 }] });
    expect(due.items.map((a) => a.id)).toEqual(['p1']);
  });

  it('never arms the run of a test-mode scope, whose usage is not billed', async () => {
    const log = logRecorder();
    const i1 = log.stream('instance-i1', { instanceId: 'i1', jobId: 'j1' });
    const model = await projected(billingAccountsProjection);
    await model.handle(i1('compute.InstanceRequested.v1', { ...instanceSpec({ projectId: 'p1:test' }), requestedAt: '2026-01-20T10:00:00.000Z' }));
    expect(await model.get('p1:test')).toMatchObject({ meteredSince: '2026-01-20T10:00:00.000Z', nextRunAt: null, runArmed: false });
    expect((await model.collection.find({ filter: { runArmed: true } })).items).toEqual([]);
  });

  it('counts issued invoices and sums the paid ones per currency', async () => {
    const log = logRecorder();
    const a = log.stream('invoice-a', { invoiceId: 'a', projectId: 'p1' });
    const b = log.stream('invoice-b', { invoiceId: 'b', projectId: 'p1' });
    const c = log.stream('invoice-c', { invoiceId: 'c', projectId: 'p1' });
    const model = await projected(billingAccountsProjection);
    await model.handle(
      a('billing.InvoiceIssued.v1', { ...invoice, issuedAt: '2026-01-01T00:00:00.000Z' }),
      b('billing.InvoiceIssued.v1', { ...invoice, issuedAt: '2026-01-02T00:00:00.000Z' }),
      c('billing.InvoiceIssued.v1', { ...invoice, currency: 'NGN', totalCents: 500000, issuedAt: '2026-01-02T00:00:00.000Z' }),
      a('billing.InvoicePaid.v1', { ...invoice, paidAt: '2026-01-03T00:00:00.000Z' }),
      c('billing.InvoicePaid.v1', { ...invoice, currency: 'NGN', totalCents: 500000, paidAt: '2026-01-03T00:00:00.000Z' }),
    );
    expect(await model.get('p1')).toMatchObject({ invoiceCount: 3, paidCount: 2, paidCents: { USD: 1075, NGN: 500000 }, meteredSince: null, nextRunAt: null, runArmed: false });
  });

  it('counts no invoice or payment twice when the log hands it again after a restart', async () => {
    const log = logRecorder();
    const a = log.stream('invoice-a', { invoiceId: 'a', projectId: 'p1' });
    const events = [a('billing.InvoiceIssued.v1', { ...invoice, issuedAt: '2026-01-01T00:00:00.000Z' }), a('billing.InvoicePaid.v1', { ...invoice, paidAt: '2026-01-03T00:00:00.000Z' })];
    const model = await projected(billingAccountsProjection);
    await model.handle(...events);
    model.restart();
    expect(await model.handle(...events)).toBe(false);
    expect(await model.get('p1')).toMatchObject({ invoiceCount: 1, paidCount: 1, paidCents: { USD: 1075 } });
  });
});
