import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { walletStream } from '../../libs/domain/billing/events';
import { walletDecider } from '../../libs/domain/billing/wallet.decider';
import { invoiceNumbersStream, invoiceStream, usageBillingStream } from '../../libs/domain/invoicing/events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import type { Clock } from '../../libs/runtime/src/clock';
import { billingAccountsProjection } from '../../projections/billing-accounts/billing-accounts.projection';
import { usageMetersProjection } from '../../projections/usage-meters/usage-meters.projection';
import { gatewaySpendProjection } from '../../projections/gateway-usage/gateway-usage.projection';
import { instanceSpec } from '../../test/support/fixtures';
import { projected } from '../../test/support/projector';
import { InvoicePayments } from './invoice-payments';
import { issueInvoice } from '../../usecases/invoicing/issue-invoice';
import { MonthEndInvoicing, usageInvoiceId } from './month-end-run';
import { UsageInvoicer } from './usage-invoicer';

/**
 * Usage billing end to end over a real (embedded) event store: the month-end run over the real
 * billing_accounts and usage_meters read models (fed from the log), the invoicer that issues each
 * closed period's invoice, and the process manager that marks an invoice paid from its wallet debit.
 */
describe('usage invoicing', () => {
  let store: SqlEventStore;
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  const append = (stream: string, type: string, data: Record<string, unknown>, projectId: string) => store.append(stream, [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1, projectId, actor: 'test' } }], { expectedRevision: 'any' });
  const streamOf = async (stream: string) => store.readStream(stream);
  const since = (from: number) => store.readAll({ fromPosition: from, maxCount: 10_000 });

  /** An instance at `hourlyPriceCents`, running over each [from, to) given. */
  async function instance(projectId: string, name: string, hourlyPriceCents: number, runs: Array<[string, string | null]>): Promise<string> {
    const id = randomUUID();
    const s = `instance-${id}`;
    await append(s, 'compute.InstanceRequested.v1', { ...instanceSpec({ projectId, name, hourlyPriceCents }), instanceId: id, jobId: 'j1', requestedAt: runs[0]?.[0] ?? '2026-01-01T00:00:00.000Z' }, projectId);
    for (const [i, [from, to]] of runs.entries()) {
      if (i === 0) await append(s, 'compute.InstanceProvisioned.v1', { instanceId: id, jobId: 'j1', operation: 'create', externalId: 'x', hostname: name, ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at: from }, projectId);
      else await append(s, 'compute.InstanceStarted.v1', { instanceId: id, jobId: `start-${i}`, operation: 'start', at: from }, projectId);
      if (to) await append(s, 'compute.InstanceStopped.v1', { instanceId: id, jobId: `stop-${i}`, at: to }, projectId);
    }
    return id;
  }

  /** The month-end run at a fixed time over read models fed with the whole log so far. */
  async function monthEnd(nowIso: string, options: { caughtUp?: boolean } = {}) {
    const accounts = await projected(billingAccountsProjection);
    const meters = await projected(usageMetersProjection);
    const spend = await projected(gatewaySpendProjection);
    const log = await since(0);
    await accounts.handle(...log);
    await meters.handle(...log);
    await spend.handle(...log);
    const clock: Clock = { now: () => Date.parse(nowIso), onAdvance: () => () => undefined };
    const run = new MonthEndInvoicing({ events: store, accounts: async () => accounts.collection, meters: async () => meters.collection, gatewaySpend: async () => spend.collection, metersCaughtUp: async () => options.caughtUp ?? true, clock, logger: pino({ level: 'silent' }) });
    return { run, accounts };
  }
  const closed = async (projectId: string) => (await streamOf(usageBillingStream(projectId))).map((e) => e.data);

  it('closes each ended month once, from the first metered one, with each resource\'s started hours at its price', async () => {
    const p = randomUUID();
    const web = await instance(p, 'web', 4, [['2026-01-20T10:00:00.000Z', '2026-01-20T12:30:00.000Z']]); // 3 started hours in January
    const edge = await instance(p, 'edge', 10, [['2026-01-31T23:30:00.000Z', '2026-02-01T01:00:00.000Z']]); // 1 h in January, 1 h in February
    const { run } = await monthEnd('2026-03-01T06:00:00.000Z');
    await run.tick();

    expect(await closed(p)).toEqual([
      {
        projectId: p,
        periodStart: '2026-01-01T00:00:00.000Z',
        periodEnd: '2026-02-01T00:00:00.000Z',
        currency: 'USD',
        amountCents: 22,
        lines: [
          { resourceType: 'instance', resourceId: web, name: 'web', plan: 'pc-t3-medium', hours: 3, hourlyPriceCents: 4, amountCents: 12 },
          { resourceType: 'instance', resourceId: edge, name: 'edge', plan: 'pc-t3-medium', hours: 1, hourlyPriceCents: 10, amountCents: 10 },
        ],
        invoiceId: usageInvoiceId(p, '2026-01-01T00:00:00.000Z'),
        closedAt: '2026-03-01T06:00:00.000Z',
      },
      expect.objectContaining({ periodStart: '2026-02-01T00:00:00.000Z', periodEnd: '2026-03-01T00:00:00.000Z', amountCents: 10, lines: [expect.objectContaining({ resourceId: edge, hours: 1 })], invoiceId: usageInvoiceId(p, '2026-02-01T00:00:00.000Z') }),
    ]);

    // A second run on the same (stale) read model, or a restarted one later in the month, closes nothing again.
    await run.tick();
    await (await monthEnd('2026-03-20T00:00:00.000Z')).run.tick();
    expect(await closed(p)).toHaveLength(2);
  });

  it('runs nothing before the month has ended, nor while the usage meters lag behind the log', async () => {
    const p = randomUUID();
    await instance(p, 'web', 4, [['2026-05-03T00:00:00.000Z', null]]);
    await (await monthEnd('2026-05-31T23:59:59.999Z')).run.tick();
    await (await monthEnd('2026-06-01T00:00:00.000Z', { caughtUp: false })).run.tick();
    expect(await closed(p)).toEqual([]);
    await (await monthEnd('2026-06-01T00:00:00.000Z')).run.tick();
    expect(await closed(p)).toEqual([expect.objectContaining({ periodStart: '2026-05-01T00:00:00.000Z', lines: [expect.objectContaining({ hours: 29 * 24 })] })]);
  });

  it('closes a month without usage with no invoice, and bills nothing of a test-mode scope', async () => {
    const p = randomUUID();
    const idle = randomUUID();
    await append(`instance-${idle}`, 'compute.InstanceRequested.v1', { ...instanceSpec({ projectId: p }), instanceId: idle, jobId: 'j1', requestedAt: '2026-07-10T00:00:00.000Z' }, p); // never provisioned
    await instance(`${p}:test`, 'sandbox', 4, [['2026-07-10T00:00:00.000Z', null]]);
    const before = await store.headPosition();
    const { run } = await monthEnd('2026-08-02T00:00:00.000Z');
    await run.tick();
    expect(await closed(p)).toEqual([expect.objectContaining({ periodStart: '2026-07-01T00:00:00.000Z', amountCents: 0, lines: [], invoiceId: null })]);
    expect(await closed(`${p}:test`)).toEqual([]);

    // (The run also closed other tests' projects: only this project's closing is handed on.)
    const mine = (await since(before)).filter((e) => e.streamId === usageBillingStream(p));
    expect(mine).toHaveLength(1);
    expect(await new UsageInvoicer(store).handle(mine)).toBe(false);
    expect(await streamOf(invoiceNumbersStream(p))).toEqual([]);
  });

  it('issues each closed period\'s invoice once: one line per resource, no tax, due 14 days after the period, caused by the closing', async () => {
    const p = randomUUID();
    await instance(p, 'web', 4, [['2026-01-20T10:00:00.000Z', '2026-01-20T12:30:00.000Z']]);
    await instance(p, 'edge', 10, [['2026-02-10T00:00:00.000Z', '2026-02-10T00:10:00.000Z']]);
    const from = await store.headPosition();
    await (await monthEnd('2026-03-01T00:00:00.000Z')).run.tick();
    const log = await since(from);
    const invoicer = new UsageInvoicer(store);
    expect(await invoicer.handle(log)).toBe(true);
    expect(await invoicer.handle(log)).toBe(false); // a replay issues nothing twice

    const [janClosed, febClosed] = log.filter((e) => e.type === 'billing.UsagePeriodClosed.v1');
    const jan = await streamOf(invoiceStream(usageInvoiceId(p, '2026-01-01T00:00:00.000Z')));
    const feb = await streamOf(invoiceStream(usageInvoiceId(p, '2026-02-01T00:00:00.000Z')));
    expect(jan.map((e) => e.type)).toEqual(['billing.InvoiceIssued.v1']);
    expect(jan[0].data).toEqual({
      invoiceId: usageInvoiceId(p, '2026-01-01T00:00:00.000Z'),
      projectId: p,
      invoiceNumber: 'INV-2026-000001',
      currency: 'USD',
      amountCents: 12,
      taxRate: 0,
      taxCents: 0,
      totalCents: 12,
      lineItems: [{ description: 'instance web (pc-t3-medium): 3 h from 2026-01-01 to 2026-02-01', quantity: 3, unitPriceCents: 4 }],
      dueDate: '2026-02-15T00:00:00.000Z',
      metadata: { usagePeriodStart: '2026-01-01T00:00:00.000Z', usagePeriodEnd: '2026-02-01T00:00:00.000Z' },
      source: { kind: 'usage', periodStart: '2026-01-01T00:00:00.000Z', periodEnd: '2026-02-01T00:00:00.000Z' },
      issuedAt: '2026-03-01T00:00:00.000Z',
    });
    expect(jan[0].metadata).toMatchObject({ projectId: p, actor: 'system:month-end-run', causationId: janClosed.id });
    expect(feb[0].data).toMatchObject({ invoiceNumber: 'INV-2026-000002', totalCents: 10, dueDate: '2026-03-15T00:00:00.000Z' });
    expect(feb[0].metadata).toMatchObject({ causationId: febClosed.id });
    expect((await streamOf(invoiceNumbersStream(p))).map((e) => e.data.number)).toEqual(['INV-2026-000001', 'INV-2026-000002']);

    // The closings move the account's timer on to the month after the last closed period.
    const { accounts } = await monthEnd('2026-03-01T00:00:00.000Z');
    expect(await accounts.get(p)).toMatchObject({ invoicedThrough: '2026-03-01T00:00:00.000Z', nextRunAt: '2026-04-01T00:00:00.000Z', invoiceCount: 2 });
  });

  it("bills a project's inference gateway spend with its usage: one line per model at the sum of its usage events, a test-mode scope never", async () => {
    const p = randomUUID();
    let n = 0;
    const call = (scope: string, model: string, costMicros: number, at: string) =>
      append(`gwusage-req_${p}_${++n}:1`, 'gateway.UsageRecorded.v1', { usageId: `req_${n}:1`, requestId: `req_${n}`, attempt: 1, keyId: 'k1', projectId: scope, mode: scope.endsWith(':test') ? 'test' : 'live', model, upstream: 'simulator', inputTokens: 10, outputTokens: 5, costMicros, latencyMs: 1, outcome: 'completed', day: at.slice(0, 10), recordedAt: at }, scope);
    await call(p, 'sim-pro', 25_001, '2026-09-03T10:00:00.000Z');
    await call(p, 'sim-pro', 10_000, '2026-09-30T23:59:00.000Z');
    await call(p, 'sim-mini', 90, '2026-09-10T00:00:00.000Z');
    await call(p, 'sim-mini', 500_000, '2026-10-01T00:00:00.000Z'); // October's
    await call(`${p}:test`, 'sim-pro', 1_000_000, '2026-09-05T00:00:00.000Z');
    const from = await store.headPosition();
    await (await monthEnd('2026-10-01T01:00:00.000Z')).run.tick();
    // Micro-dollars summed per model, then rounded up to the cent: 35,001 µ$ → 4 ¢, 90 µ$ → 1 ¢.
    expect(await closed(p)).toEqual([
      expect.objectContaining({
        periodStart: '2026-09-01T00:00:00.000Z',
        amountCents: 5,
        lines: [
          { resourceType: 'gateway', resourceId: 'sim-pro', name: 'sim-pro', plan: 'inference', hours: 1, hourlyPriceCents: 4, amountCents: 4, gateway: { requests: 2, inputTokens: 20, outputTokens: 10 } },
          { resourceType: 'gateway', resourceId: 'sim-mini', name: 'sim-mini', plan: 'inference', hours: 1, hourlyPriceCents: 1, amountCents: 1, gateway: { requests: 1, inputTokens: 10, outputTokens: 5 } },
        ],
      }),
    ]);
    expect(await closed(`${p}:test`)).toEqual([]);
    const mine = (await since(from)).filter((e) => e.streamId === usageBillingStream(p));
    expect(await new UsageInvoicer(store).handle(mine)).toBe(true);
    const invoice = (await streamOf(invoiceStream(usageInvoiceId(p, '2026-09-01T00:00:00.000Z'))))[0].data;
    expect(invoice).toMatchObject({
      totalCents: 5,
      lineItems: [
        { description: 'inference gateway sim-pro: 2 calls, 20 input and 10 output tokens from 2026-09-01 to 2026-10-01', quantity: 1, unitPriceCents: 4 },
        { description: 'inference gateway sim-mini: 1 calls, 10 input and 5 output tokens from 2026-09-01 to 2026-10-01', quantity: 1, unitPriceCents: 1 },
      ],
    });
  });

  it('refuses an invoice whose lines do not add up before it takes a number, so the sequence keeps no gap', async () => {
    const p = randomUUID();
    const base = { projectId: p, currency: 'USD' as const, taxRate: 0, dueDate: '2026-02-01T00:00:00.000Z', metadata: {}, source: { kind: 'request' as const }, now: '2026-01-01T00:00:00.000Z' };
    await expect(issueInvoice(store, { ...base, invoiceId: randomUUID(), amountCents: 100, lineItems: [{ description: 'x', quantity: 3, unitPriceCents: 30 }] }, { metadata: { projectId: p, actor: 'test' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await streamOf(invoiceNumbersStream(p))).toEqual([]);
    const ok = randomUUID();
    await issueInvoice(store, { ...base, invoiceId: ok, amountCents: 90, lineItems: [{ description: 'x', quantity: 3, unitPriceCents: 30 }] }, { metadata: { projectId: p, actor: 'test' } });
    expect((await streamOf(invoiceStream(ok)))[0].data).toMatchObject({ invoiceNumber: 'INV-2026-000001', totalCents: 90 });
  });

  describe('invoice payments (wallet debit → InvoicePaid)', () => {
    const now = '2026-04-02T00:00:00.000Z';
    async function pendingInvoice(p: string, amountCents: number): Promise<string> {
      const invoiceId = randomUUID();
      await issueInvoice(store, { invoiceId, projectId: p, currency: 'USD', amountCents, taxRate: 0, lineItems: [], dueDate: now, metadata: {}, source: { kind: 'request' }, now }, { metadata: { projectId: p, actor: 'test' } });
      return invoiceId;
    }
    async function walletMove(p: string, type: 'CreditWallet' | 'DebitWallet', amountCents: number, reference: string, source: string): Promise<void> {
      const id = randomUUID();
      const command = { type, projectId: p, currency: 'USD' as const, amountCents, reference, description: null, conversion: null, now, ...(type === 'CreditWallet' ? { creditId: id, source } : { debitId: id, source }) };
      await handleCommand(store, walletStream(p, 'USD'), walletDecider, command as never, { metadata: { projectId: p, actor: 'test' } });
    }
    const paid = async (invoiceId: string) => (await streamOf(invoiceStream(invoiceId))).filter((e) => e.type === 'billing.InvoicePaid.v1');

    it('marks the invoice paid from the debit that paid it, naming the debit and caused by it, once', async () => {
      const p = randomUUID();
      const invoiceId = await pendingInvoice(p, 500);
      await walletMove(p, 'CreditWallet', 2000, 'top-1', 'top-up');
      const from = await store.headPosition();
      await walletMove(p, 'DebitWallet', 500, invoiceId, 'invoice');
      const log = await since(from);
      const pm = new InvoicePayments(store);
      expect(await pm.handle(log)).toBe(true);
      expect(await pm.handle(log)).toBe(false);

      const [debit] = log as RecordedEvent[];
      const [event] = await paid(invoiceId);
      expect(event.data).toMatchObject({ invoiceId, projectId: p, totalCents: 500, currency: 'USD', paidAt: now, payment: { method: 'wallet', debitId: debit.data.debitId, walletStream: walletStream(p, 'USD'), debitEventId: debit.id, debitPosition: debit.position } });
      expect(event.metadata).toMatchObject({ actor: 'system:invoice-payments', causationId: debit.id });
      expect(await paid(invoiceId)).toHaveLength(1);
    });

    it('pays nothing from a debit of another amount, of another source, or for an invoice that does not exist', async () => {
      const p = randomUUID();
      const [short, direct] = [await pendingInvoice(p, 500), await pendingInvoice(p, 500)];
      await walletMove(p, 'CreditWallet', 5000, 'top-1', 'top-up');
      const from = await store.headPosition();
      await walletMove(p, 'DebitWallet', 499, short, 'invoice');
      await walletMove(p, 'DebitWallet', 500, direct, 'debit'); // a direct debit that happens to name it
      await walletMove(p, 'DebitWallet', 500, randomUUID(), 'invoice');
      expect(await new InvoicePayments(store).handle(await since(from))).toBe(false);
      expect(await paid(short)).toEqual([]);
      expect(await paid(direct)).toEqual([]);
    });

    it('lets an unexpected failure through, so that the subscription retries the batch', async () => {
      const failing: SqlEventStore = Object.assign(Object.create(store) as SqlEventStore, { readStream: async () => Promise.reject(new Error('store down')) });
      const p = randomUUID();
      const invoiceId = await pendingInvoice(p, 500);
      await walletMove(p, 'CreditWallet', 500, 'top-1', 'top-up');
      const from = await store.headPosition();
      await walletMove(p, 'DebitWallet', 500, invoiceId, 'invoice');
      const error = await new InvoicePayments(failing).handle(await since(from)).catch((e: unknown) => e);
      expect(error).toMatchObject({ message: 'store down' });
      expect(error).not.toBeInstanceOf(DomainError);
    });
  });
});
