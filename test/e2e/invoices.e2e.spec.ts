import { request } from 'node:https';
import { PDFParse } from 'pdf-parse';
import { ManualClock } from '../../libs/runtime/src/clock';
import { MonthEndInvoicing } from '../../sagas/usage-invoicing/month-end-run';
import { eventually } from '../support/wait';
import { pdfTextItems } from '../support/pdf-layout';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
const HOUR = 3_600_000;

/** The raw bytes of a GET (the shared client decodes bodies as UTF-8 text). */
function getBytes(srv: TestServer, key: string, path: string): Promise<{ status: number; contentType: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, srv.url), { method: 'GET', rejectUnauthorized: false, headers: { 'x-service-api-key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ISSUER = {
  INVOICE_ISSUER_NAME: 'Acme Cloud Ltd',
  INVOICE_ISSUER_ADDRESS: '12 Marina Road; Lagos Island, Lagos; Nigeria',
  INVOICE_ISSUER_TAX_ID: 'NG-TIN 12345678-0001',
  INVOICE_ISSUER_EMAIL: 'billing@acme-cloud.example',
  INVOICE_FOOTER: 'Payment is due by the due date shown above.',
};

const startOfNextMonth = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

describe.each<Profile>(['embedded', 'server'])('invoices and usage (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Api;
  /** A live owner key (the client `owner` sends it). */
  let ownerKey: string;
  let other: Api;
  const clock = new ManualClock();
  const year = () => new Date(clock.now()).getUTCFullYear();

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero', ...ISSUER }, { clock });
    // Usage is billed in live mode only (DECISIONS 21); the bootstrap key is a test key.
    const live = await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    expect(live.status).toBe(201);
    ownerKey = live.body.data.attributes.key;
    owner = srv.as(ownerKey);
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `invoices-other-${profile}` });
    expect(project.status).toBe(201);
    other = srv.as(project.body.included[0].attributes.key);
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });

  const invoice = (over: Record<string, unknown> = {}) => ({ currency: 'USD', amountCents: 1000, dueDate: '2030-01-31', ...over });
  let first: Record<string, any>;

  it('creates a pending invoice (201) numbered INV-<year>-000001 per project, with tax and total, and gets it', async () => {
    const lineItems = [
      { description: 'Compute: web-1', quantity: 3, unitPriceCents: 300 },
      { description: 'Support plan', quantity: 1, unitPriceCents: 105 },
    ];
    const created = await owner.post('/v1/invoices', invoice({ amountCents: 1005, taxRate: 0.07, lineItems, metadata: { po: 'PO-7' } }));
    expect(created.status).toBe(201);
    first = created.body.data;
    expect(first).toMatchObject({
      invoiceNumber: `INV-${year()}-000001`,
      projectId: srv.bootstrap.projectId,
      currency: 'USD',
      amountCents: 1005,
      taxRate: 0.07,
      taxCents: 70, // 70.35
      totalCents: 1075,
      lineItems,
      status: 'pending',
      dueDate: '2030-01-31T00:00:00.000Z',
      paidAt: null,
      source: 'request',
      metadata: { po: 'PO-7' },
    });
    const got = await owner.get(`/v1/invoices/${first.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(first);
    // another project's sequence is its own, and it cannot see ours
    expect((await other.post('/v1/invoices', invoice())).body.data.invoiceNumber).toBe(`INV-${year()}-000001`);
    expect((await other.get(`/v1/invoices/${first.id}`)).status).toBe(404);
  });

  it('rounds tax half away from zero on exact decimal products (0.5-cent cases)', async () => {
    const cases: Array<[number, number, number]> = [
      [1, 0.5, 1], // 0.5
      [3, 0.5, 2], // 1.5
      [5, 0.1, 1], // 0.5 (binary 0.5000000000000001)
      [45, 0.1, 5], // 4.5 (binary 4.5)
      [201, 0.005, 1], // 1.005
      [250, 0.07, 18], // 17.5
      [100, 0.125, 13], // 12.5
    ];
    for (const [amountCents, taxRate, taxCents] of cases) {
      const res = await owner.post('/v1/invoices', invoice({ amountCents, taxRate }));
      expect(res.status).toBe(201);
      expect([amountCents, taxRate, res.body.data.taxCents, res.body.data.totalCents]).toEqual([amountCents, taxRate, taxCents, amountCents + taxCents]);
    }
  });

  it('refuses line items that do not add up to amountCents (400, pointing at lineItems) and takes no number for them', async () => {
    const before = (await owner.get('/v1/invoices?limit=1')).body.meta.total as number;
    const res = await owner.post('/v1/invoices', invoice({ amountCents: 1000, lineItems: [{ description: 'x', quantity: 3, unitPriceCents: 333 }] }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { pointer: '/lineItems' } });
    expect(res.body.errors[0].detail).toContain('999');
    for (const bad of [{ amountCents: 0 }, { amountCents: 1.5 }, { taxRate: 1.5 }, { currency: 'EUR' }, { dueDate: 'tomorrow' }]) {
      const r = await owner.post('/v1/invoices', invoice(bad));
      expect([r.status, r.body.errors[0].code]).toEqual([400, 'BAD_REQUEST']);
    }
    const next = await owner.post('/v1/invoices', invoice());
    expect(next.body.data.invoiceNumber).toBe(`INV-${year()}-${String(before + 1).padStart(6, '0')}`);
  });

  it('gives 20 concurrent creates distinct, consecutive numbers without a gap', async () => {
    const before = (await owner.get('/v1/invoices?limit=1')).body.meta.total as number;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => owner.post('/v1/invoices', invoice({ amountCents: 100 + i }))));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const numbers = answers.map((a) => a.body.data.invoiceNumber as string).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `INV-${year()}-${String(before + i + 1).padStart(6, '0')}`));
    // the sequence stream holds exactly one assignment per invoice
    const assigned = await srv.platform.events.readStream(`invoice-numbers-${srv.bootstrap.projectId}`);
    expect(assigned.map((e) => (e.data as { sequence: number }).sequence)).toEqual(Array.from({ length: before + 20 }, (_, i) => i + 1));
  }, 60_000);

  it('honours Idempotency-Key on create: the same key replays the first answer', async () => {
    const key = `inv-${profile}-${Date.now()}`;
    const a = await owner.post('/v1/invoices', invoice({ amountCents: 4242 }), { 'idempotency-key': key });
    const b = await owner.post('/v1/invoices', invoice({ amountCents: 4242 }), { 'idempotency-key': key });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body.data.id).toBe(a.body.data.id);
    expect((await owner.post('/v1/invoices', invoice({ amountCents: 4243 }), { 'idempotency-key': key })).status).toBe(422);
  });

  it('lists invoices newest first, paginated, with filters, and the same list at /v1/iam/invoices', async () => {
    const all = await owner.get('/v1/invoices?limit=100');
    expect(all.status).toBe(200);
    const total = all.body.meta.total as number;
    expect(all.body.data[all.body.data.length - 1].id).toBe(first.id);
    const page = await owner.get('/v1/invoices?limit=5&page=2');
    expect(page.body.meta).toEqual({ page: 2, limit: 5, total, totalPages: Math.ceil(total / 5) });
    expect(page.body.links.prev).toContain('page=1');
    const iam = await owner.get('/v1/iam/invoices?limit=100');
    expect(iam.body.data).toEqual(all.body.data);
    expect((await owner.get('/v1/invoices?status=pending&limit=1')).body.meta.total).toBe(total);
    expect((await owner.get('/v1/invoices?status=paid')).body.meta.total).toBe(0);
    expect((await owner.get('/v1/invoices?sort=invoiceNumber&limit=1')).body.data[0].id).toBe(first.id);
    expect((await owner.get('/v1/invoices?status=void')).body.errors[0].code).toBe('INVALID_QUERY');
    expect((await owner.get('/v1/invoices?sort=nope')).status).toBe(400);
    expect((await owner.get('/v1/invoices?limit=101')).status).toBe(400);
  });

  it('renders the invoice as a PDF holding its number, dates, line items, subtotal, tax and total', async () => {
    const res = await getBytes(srv, ownerKey, `/v1/invoices/${first.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/pdf');
    expect(res.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const parser = new PDFParse({ data: new Uint8Array(res.body) });
    const { text } = await parser.getText();
    await parser.destroy();
    for (const expected of [
      'INVOICE',
      first.invoiceNumber,
      'Issue date',
      first.createdAt.slice(0, 10),
      'Due date',
      '2030-01-31',
      'Compute: web-1',
      'Support plan',
      'USD 3.00', // unit price of the first line
      'USD 9.00', // its amount
      'USD 1.05',
      'Subtotal',
      'USD 10.05',
      'Tax (7%)',
      'USD 0.70',
      'Total',
      'USD 10.75',
    ]) {
      expect(text).toContain(expected);
    }
    expect((await getBytes(srv, ownerKey, '/v1/invoices/no-such-invoice/pdf')).status).toBe(404);
  });

  it('lays the PDF out as a finance team sends it: issuer, bill-to, footer on every page, every amount on one line inside the page', async () => {
    // A customer that declared its organization (KYC): the bill-to names it.
    const kyc = { legalName: 'Shoprite Digital Ltd', registrationNumber: 'RC 1234567', country: 'NG', address: '5 Allen Avenue, Ikeja', contactName: 'Ada Obi', contactEmail: 'ada@shoprite.example' };
    expect((await owner.post('/v1/kyc', kyc)).status).toBe(201);
    // An NGN total over a million, and enough rows to need a second page.
    const lineItems = [
      { description: 'Dedicated server bm.xl in Lagos LOS1, 744 hours, with a description long enough to wrap inside its own column', quantity: 744, unitPriceCents: 16_500_00 },
      ...Array.from({ length: 40 }, (_, i) => ({ description: `Volume vol-${i} (500 GB)`, quantity: 1, unitPriceCents: 2_500_00 + i })),
    ];
    const amountCents = lineItems.reduce((sum, l) => sum + l.quantity * l.unitPriceCents, 0);
    const created = await owner.post('/v1/invoices', { currency: 'NGN', amountCents, taxRate: 0.075, dueDate: '2030-01-31', lineItems });
    expect(created.status).toBe(201);
    const ngn = created.body.data;
    expect(ngn.totalCents).toBeGreaterThan(1_000_000_00);
    const money = (cents: number) => `NGN ${Math.trunc(cents / 100).toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;

    const layout = await eventually(
      async () => pdfTextItems((await getBytes(srv, ownerKey, `/v1/invoices/${ngn.id}/pdf`)).body),
      (l) => l.items.some((i) => i.text === kyc.legalName),
    );
    const texts = layout.items.map((i) => i.text);
    // Issuer (from configuration) and bill-to (the declared organization, the project's name and id).
    for (const expected of ['Acme Cloud Ltd', '12 Marina Road', 'Lagos Island, Lagos', 'Nigeria', 'Tax ID: NG-TIN 12345678-0001', 'billing@acme-cloud.example', 'BILL TO', kyc.legalName, kyc.address]) expect(texts).toContain(expected);
    expect(texts.some((t) => t.includes(srv.bootstrap.projectId))).toBe(true);
    // Every amount is one run of text (never split across lines), inside the right margin.
    const amounts = [...lineItems.flatMap((l) => [money(l.unitPriceCents), money(l.quantity * l.unitPriceCents)]), money(ngn.amountCents), money(ngn.taxCents), money(ngn.totalCents)];
    for (const amount of amounts) {
      const runs = layout.items.filter((i) => i.text === amount);
      expect({ amount, drawn: runs.length > 0 }).toEqual({ amount, drawn: true });
      for (const r of runs) expect(r.x + r.width).toBeLessThanOrEqual(layout.pageWidth - 50 + 0.5);
    }
    expect(layout.items.filter((i) => /^[\d,.]+$/.test(i.text) && /[,.]/.test(i.text))).toEqual([]); // no part of an amount alone on a line
    // The total on one line with its label.
    const total = layout.items.find((i) => i.text === money(ngn.totalCents) && i.page === layout.pages)!;
    const label = layout.items.find((i) => i.text === 'Total' && i.page === total.page)!;
    expect(Math.abs(label.y - total.y)).toBeLessThan(0.5);
    expect(label.x + label.width).toBeLessThan(total.x);
    // A footer on every page, with the page count.
    expect(layout.pages).toBeGreaterThan(1);
    for (let page = 1; page <= layout.pages; page++) {
      const onPage = layout.items.filter((i) => i.page === page);
      expect(onPage.map((i) => i.text)).toContain(`Page ${page} of ${layout.pages}`);
      expect(onPage.some((i) => i.text.includes('Payment is due by the due date shown above.'))).toBe(true);
      // The footer is the lowest text of the page.
      const footer = onPage.find((i) => i.text === `Page ${page} of ${layout.pages}`)!;
      expect(Math.min(...onPage.map((i) => i.y))).toBeGreaterThanOrEqual(footer.y - 12);
    }
  });

  it('pays from the wallet: 422 INSUFFICIENT_FUNDS without funds, then paid once (InvoicePaid linked to its debit), 409 paying twice', async () => {
    const created = (await owner.post('/v1/invoices', invoice({ amountCents: 1000, taxRate: 0.075 }))).body.data;
    expect(created.totalCents).toBe(1075);
    const poor = await owner.patch(`/v1/invoices/${created.id}/pay`, {});
    expect([poor.status, poor.body.errors[0].code]).toEqual([422, 'INSUFFICIENT_FUNDS']);
    expect((await owner.get(`/v1/invoices/${created.id}`)).body.data.status).toBe('pending');

    expect((await owner.post('/v1/billing/wallets/USD/credit', { amountCents: 1500 })).status).toBe(200);
    const paid = await owner.patch(`/v1/invoices/${created.id}/pay`, {});
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ id: created.id, status: 'paid', totalCents: 1075 });
    expect(paid.body.data.paidAt).toEqual(expect.any(String));
    expect((await owner.get(`/v1/invoices/${created.id}`)).body.data).toEqual(paid.body.data);
    const twice = await owner.patch(`/v1/invoices/${created.id}/pay`, {});
    expect([twice.status, twice.body.errors[0].code]).toEqual([409, 'INVALID_STATE']);
    expect((await owner.get('/v1/billing/wallets/USD')).body.data.attributes.balanceCents).toBe(425);
    expect((await other.patch(`/v1/invoices/${created.id}/pay`, {})).status).toBe(404);

    // The debit names the invoice (source, reference); InvoicePaid names the debit and is caused by it.
    const debits = (await srv.platform.events.readStream(`wallet-${srv.bootstrap.projectId}-USD`)).filter((e) => e.type === 'billing.WalletDebited.v1');
    expect(debits).toHaveLength(1);
    expect(debits[0].data).toMatchObject({ source: 'invoice', reference: created.id, amountCents: 1075, currency: 'USD' });
    const paidEvents = (await srv.platform.events.readStream(`invoice-${created.id}`)).filter((e) => e.type === 'billing.InvoicePaid.v1');
    expect(paidEvents).toHaveLength(1);
    expect(paidEvents[0].data).toMatchObject({ payment: { method: 'wallet', debitId: (debits[0].data as { debitId: string }).debitId, walletStream: debits[0].streamId, debitEventId: debits[0].id, debitPosition: debits[0].position } });
    expect(paidEvents[0].metadata.causationId).toBe(debits[0].id);
    expect(paid.body.data.paymentId).toBe((debits[0].data as { debitId: string }).debitId);

    const overview = (await owner.get('/v1/billing/overview')).body.data.attributes;
    expect(overview).toMatchObject({ totalSpendCents: 1075, totalCreditsCents: 1500, currency: 'USD', paymentCount: 1, creditCount: 1 });
    expect(overview.balances).toEqual([{ currency: 'USD', balanceCents: 425 }]);
  });

  it('debits once when the same invoice is paid by five concurrent requests: one 200, the others 409', async () => {
    const created = (await owner.post('/v1/invoices', invoice({ amountCents: 100 }))).body.data;
    const balance = async () => (await owner.get('/v1/billing/wallets/USD')).body.data.attributes.balanceCents as number;
    const before = await balance();
    const answers = await Promise.all(Array.from({ length: 5 }, () => owner.patch(`/v1/invoices/${created.id}/pay`, {})));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await balance()).toBe(before - 100);
    const debits = (await srv.platform.events.readStream(`wallet-${srv.bootstrap.projectId}-USD`)).filter((e) => (e.data as { reference?: string }).reference === created.id);
    expect(debits).toHaveLength(1);
  });

  let instanceId: string;
  let hourly: number;

  it('meters an instance per started hour while it runs (ManualClock): 2.5 h running is 3 hours at the plan price', async () => {
    const providerId = (await owner.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-usage' })).body.data.id;
    const created = await owner.post('/v1/instances', { name: 'metered', providerId, region: 'us-east', instanceType: 'mc-standard-2' });
    expect(created.status).toBe(202);
    instanceId = created.body.data.id;
    await eventually(() => owner.get(`/v1/instances/${instanceId}`), (r) => r.body.data.attributes.status === 'active');
    clock.advance(2.5 * HOUR);
    expect((await owner.post(`/v1/instances/${instanceId}/actions`, { action: 'stop' })).status).toBe(202);
    await eventually(() => owner.get(`/v1/instances/${instanceId}`), (r) => r.body.data.attributes.status === 'stopped');
    // stopped: more time adds nothing
    clock.advance(HOUR);

    const usage = await eventually(() => owner.get('/v1/billing/usage'), (r) => r.body.data?.[0]?.attributes.hours === 3);
    expect(usage.status).toBe(200);
    const item = usage.body.data[0];
    hourly = item.attributes.hourlyPriceCents;
    expect(hourly).toBeGreaterThan(0);
    expect(item).toMatchObject({ id: instanceId, type: 'usage', attributes: { resourceType: 'instance', resourceId: instanceId, name: 'metered', plan: 'mc-standard-2', currency: 'USD', hours: 3, costCents: 3 * hourly } });
    const days = item.attributes.days as Array<{ hours: number; costCents: number }>;
    expect(days.reduce((s, d) => s + d.hours, 0)).toBe(3);
    expect(days.reduce((s, d) => s + d.costCents, 0)).toBe(3 * hourly);
    expect(usage.body.meta).toMatchObject({ page: 1, total: 1, currency: 'USD', totalHours: 3, totalCostCents: 3 * hourly });

    // /v1/iam/usage answers the same numbers (DECISIONS 15)
    const iam = await owner.get('/v1/iam/usage');
    expect(iam.body.data).toEqual(usage.body.data);
    // another project has no usage
    expect((await other.get('/v1/billing/usage')).body.meta.total).toBe(0);

    const overview = await owner.get('/v1/billing/overview');
    expect(overview.status).toBe(200);
    expect(overview.body.data).toMatchObject({ id: srv.bootstrap.projectId, type: 'billing-overview', attributes: { upcomingChargesCents: 3 * hourly, currency: 'USD' } });
    expect(overview.body.data.attributes.invoiceCount).toBe((await owner.get('/v1/invoices?limit=1')).body.meta.total);
  }, 90_000);

  it('validates the usage window: end before start, or more than 366 days, is 400 INVALID_QUERY', async () => {
    for (const path of ['/v1/iam/usage', '/v1/billing/usage']) {
      const backwards = await owner.get(`${path}?startDate=2026-03-01&endDate=2026-02-01`);
      expect([backwards.status, backwards.body.errors[0].code]).toEqual([400, 'INVALID_QUERY']);
      const tooLong = await owner.get(`${path}?startDate=2025-01-01T00:00:00Z&endDate=2026-01-03T00:00:00Z`);
      expect([tooLong.status, tooLong.body.errors[0].code]).toEqual([400, 'INVALID_QUERY']);
      expect((await owner.get(`${path}?startDate=yesterday`)).body.errors[0].code).toBe('INVALID_QUERY');
      expect((await owner.get(`${path}?startDate=2025-01-01T00:00:00Z&endDate=2026-01-02T00:00:00Z`)).status).toBe(200); // 366 days
    }
    // a window before the instance ran has none of its hours
    expect((await owner.get('/v1/billing/usage?startDate=2020-01-01&endDate=2020-01-31')).body.meta).toMatchObject({ total: 0, totalCostCents: 0 });
  });

  it('invoices the accrued usage at month end, once: a restart does not invoice it again', async () => {
    const usageInvoices = async (s: TestServer) => ((await s.as(ownerKey).get('/v1/invoices?limit=100')).body.data as Array<Record<string, any>>).filter((i) => i.source === 'usage');
    expect(await usageInvoices(srv)).toEqual([]);
    const monthEnd = startOfNextMonth(clock.now());
    clock.advance(monthEnd - clock.now() + 60_000);

    const [issued] = await eventually(() => usageInvoices(srv), (l) => l.length > 0);
    expect(issued).toMatchObject({
      status: 'pending',
      currency: 'USD',
      amountCents: 3 * hourly,
      taxCents: 0,
      totalCents: 3 * hourly,
      usagePeriod: { end: new Date(monthEnd).toISOString() },
      lineItems: [{ quantity: 3, unitPriceCents: hourly }],
    });
    expect(issued.lineItems[0].description).toContain('metered');
    expect(issued.invoiceNumber).toMatch(/^INV-\d{4}-\d{6}$/);
    // invoiced: nothing is upcoming any more (the instance is stopped)
    expect((await owner.get('/v1/billing/overview')).body.data.attributes.upcomingChargesCents).toBe(0);

    // A restart on the same data and clock re-arms the run from the events; it polls and closes nothing twice.
    const env = srv.env;
    await srv.stop({ keepData: true });
    srv = await startTestServer(profile, env, { clock });
    owner = srv.as(ownerKey);
    const run = srv.platform.processes.timers.find((t): t is MonthEndInvoicing => t instanceof MonthEndInvoicing)!;
    await eventually(async () => run.ticks, (n) => n >= 2);
    clock.advance(60_000);
    await eventually(async () => run.ticks, (n) => n >= 3);
    const after = await usageInvoices(srv);
    expect(after.map((i) => i.id)).toEqual([issued.id]);
    const closed = await srv.platform.events.readStream(`invoice-usage-${srv.bootstrap.projectId}`);
    expect(closed.map((e) => e.type)).toEqual(['billing.UsagePeriodClosed.v1']);
    // The period's usage, read from meters the restart folded again from the events (embedded: a fresh
    // in-memory read store), is still what was invoiced.
    const periodStart = (closed[0].data as { periodStart: string }).periodStart;
    const usage = await owner.get(`/v1/billing/usage?startDate=${encodeURIComponent(periodStart)}&endDate=${encodeURIComponent(new Date(monthEnd).toISOString())}`);
    expect(usage.body.meta).toMatchObject({ total: 1, totalHours: 3, totalCostCents: issued.amountCents });
  }, 120_000);
});
