import { isBilledScope, modeOfScope, projectOfScope } from '../../libs/domain/shared/scope';
import { Command, CommandBus, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { invoiceStream, USAGE_CURRENCY, type Currency, type InvoiceStatus } from '../../libs/domain/invoicing/events';
import { requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { listResult, type ListResult } from '../../libs/application/src/views';
import type { SortKey } from '../../libs/readstore/src/read-store.port';
import { billingAccountsProjection } from '../../projections/billing-accounts/billing-accounts.projection';
import { invoicesProjection, type InvoiceDoc } from '../../projections/invoices/invoices.projection';
import { usageMetersProjection } from '../../projections/usage-meters/usage-meters.projection';
import { issueInvoice } from './issue-invoice';
import { projectMeters, upcomingChargesCents, usageOf, type ResourceUsage } from './project-usage';
import { gatewayUsageOf, upcomingGatewayCents, type GatewayModelUsage } from './gateway-usage';
import { gatewaySpendProjection } from '../../projections/gateway-usage/gateway-usage.projection';
import { walletStream } from '../../libs/domain/billing/events';
import { existingInvoice, invoiceDecider, refuseUnpayable, type IssueInvoice } from '../../libs/domain/invoicing/invoice.decider';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { billingCreditsProjection } from '../../projections/billing-credits/billing-credits.projection';
import { billingWalletsProjection } from '../../projections/billing-wallets/billing-wallets.projection';
import { recordInvoicePayment } from './record-invoice-payment';
import { DebitWalletCommand } from '../billing/wallets.handlers';
import { ownDoc, written } from '../jobs/job-writes';
import { renderInvoicePdf, type InvoiceRecipient } from './invoice-pdf';
import { projectsProjection } from '../../projections/projects/projects.projection';
import { kycRequestsProjection } from '../../projections/kyc-requests/kyc-requests.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** What a client's POST decides: the invoice but its id, project, number, source and time. */
export type InvoiceInput = Pick<IssueInvoice, 'currency' | 'amountCents' | 'taxRate' | 'lineItems' | 'dueDate' | 'metadata'>;

export class CreateInvoice extends Command<InvoiceDoc> {
  constructor(
    readonly projectId: string,
    readonly input: InvoiceInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class PayInvoice extends Command<InvoiceDoc> {
  constructor(
    readonly projectId: string,
    readonly invoiceId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class GetInvoice extends Query<InvoiceDoc> {
  constructor(
    readonly projectId: string,
    readonly invoiceId: string,
  ) {
    super();
  }
}

export class GetInvoicePdf extends Query<{ invoice: InvoiceDoc; pdf: Buffer }> {
  constructor(
    readonly projectId: string,
    readonly invoiceId: string,
  ) {
    super();
  }
}

export class ListInvoices extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ status?: InvoiceStatus; currency?: Currency }>,
    readonly toItem: (doc: InvoiceDoc) => object,
  ) {
    super();
  }
}

/** Usage in [start, end) (ms), per resource and day, one page of it. */
export class GetUsage extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly window: { start: number | null; end: number | null },
    readonly list: ListQuery<unknown>,
    readonly toItem: (u: ResourceUsage | GatewayModelUsage) => { id: string; type: string; attributes: object },
  ) {
    super();
  }
}

export interface BillingOverview {
  projectId: string;
  totalSpendCents: number;
  totalCreditsCents: number;
  upcomingChargesCents: number;
  currency: Currency;
  balances: { currency: Currency; balanceCents: number }[];
  paymentCount: number;
  creditCount: number;
  invoiceCount: number;
}

export class GetBillingOverview extends Query<BillingOverview> {
  constructor(readonly projectId: string) {
    super();
  }
}

@CommandHandler(CreateInvoice)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoice> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, input, context }: CreateInvoice): Promise<InvoiceDoc> {
    const invoiceId = requestScopedId(context, 'invoice');
    const { position } = await issueInvoice(this.ports.events, { invoiceId, projectId, ...input, source: { kind: 'request' }, now: this.ports.now() }, context);
    await this.ports.waitForProjections(position, [invoicesProjection.name, billingAccountsProjection.name]);
    return written(this.ports, invoicesProjection, invoiceStream(invoiceId), invoiceId, projectId, position, 'Invoice');
  }
}

/** An invoice's state folded from its stream (the decision's source of truth, not the read model). */
async function invoiceState(ports: PortsOf<'events'>, invoiceId: string) {
  const { state, position } = await aggregateStream(ports.events, invoiceStream(invoiceId), invoiceDecider);
  return { state, position };
}

/**
 * Pay (DECISIONS 9/16): debit the project's wallet in the invoice's currency by its total (source
 * `invoice`, reference the invoice id: 422 INSUFFICIENT_FUNDS when it cannot; one debit per invoice
 * however often it is retried), then record InvoicePaid naming that debit. The invoice-payments
 * process manager records it too, so a crash between the two cannot leave a paid-for invoice pending;
 * whichever comes first writes it. Paying a paid invoice (or one whose debit is already made): 409.
 */
@CommandHandler(PayInvoice)
export class PayInvoiceHandler implements ICommandHandler<PayInvoice> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'events' | 'readBack' | 'waitForProjections'>,
    private readonly commands: CommandBus,
  ) {}

  async execute({ projectId, invoiceId, context }: PayInvoice): Promise<InvoiceDoc> {
    const invoice = existingInvoice((await invoiceState(this.ports, invoiceId)).state, projectId);
    // A re-run after a crash (DECISIONS 5) finds the invoice its first run paid: its debit is found, not made again.
    if (context.metadata.recovering !== true) refuseUnpayable(invoice);
    const origin = { source: 'invoice' as const, reference: invoiceId, description: `Invoice ${invoice.invoiceNumber}` };
    const { movement } = await this.commands.execute(new DebitWalletCommand(projectId, invoice.currency, invoice.totalCents, origin, context));
    if (!movement.applied) throw new DomainError('INVALID_STATE', `Invoice ${invoice.invoiceNumber} is already paid (debit ${movement.id})`);
    const debit = (await this.ports.events.readStream(walletStream(projectId, invoice.currency))).find((e) => (e.data as { debitId?: string }).debitId === movement.id);
    if (debit) await recordInvoicePayment(this.ports.events, debit);
    const { position } = await invoiceState(this.ports, invoiceId);
    await this.ports.waitForProjections(position, [invoicesProjection.name, billingAccountsProjection.name]);
    return written(this.ports, invoicesProjection, invoiceStream(invoiceId), invoiceId, projectId, position, 'Invoice');
  }
}

@QueryHandler(GetInvoice)
export class GetInvoiceHandler implements IQueryHandler<GetInvoice> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, invoiceId }: GetInvoice): Promise<InvoiceDoc> {
    return ownDoc(this.ports, invoicesProjection, projectId, invoiceId, 'Invoice');
  }
}

@QueryHandler(GetInvoicePdf)
export class GetInvoicePdfHandler implements IQueryHandler<GetInvoicePdf> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'projections'>) {}

  async execute({ projectId, invoiceId }: GetInvoicePdf): Promise<{ invoice: InvoiceDoc; pdf: Buffer }> {
    const invoice = await ownDoc(this.ports, invoicesProjection, projectId, invoiceId, 'Invoice');
    return { invoice, pdf: await renderInvoicePdf(invoice, this.ports.config.invoiceIssuer, await this.recipient(invoice.projectId)) };
  }

  /** The project, and the organization its latest KYC request declared (unless rejected). */
  private async recipient(scope: string): Promise<InvoiceRecipient> {
    const projectId = projectOfScope(scope);
    const project = await (await this.ports.projections.collection(projectsProjection)).get(projectId);
    const kyc = project?.kycRequestId ? await (await this.ports.projections.collection(kycRequestsProjection)).get(project.kycRequestId) : null;
    return { projectName: project?.name ?? projectId, projectId, testMode: modeOfScope(scope) === 'test', organization: kyc && kyc.status !== 'rejected' ? kyc.organization : null };
  }
}

@QueryHandler(ListInvoices)
export class ListInvoicesHandler implements IQueryHandler<ListInvoices> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list, toItem }: ListInvoices): Promise<ListResult<object>> {
    const filter: Record<string, string> = { projectId };
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.currency) filter.currency = list.filters.currency;
    const { items, total } = await (await this.ports.projections.collection(invoicesProjection)).find({ filter, ...pageOf(list) });
    return listResult(items.map(toItem) as never[], total);
  }
}

const startOfMonthOf = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

type UsageRow = ResourceUsage | GatewayModelUsage;
function compareBy(sort: SortKey[]) {
  // A gateway row (a model's spend, DECISIONS 19) has no hours; its name is the model, its start the first day it was used.
  const value = (u: UsageRow, field: string): string | number =>
    field === 'costCents' ? u.costCents : field === 'hours' ? ('meter' in u ? u.hours : 0) : field === 'name' ? ('meter' in u ? u.meter.name : u.model) : 'meter' in u ? u.meter.createdAt : `${u.days[0]?.date ?? ''}T00:00:00.000Z`;
  const idOf = (u: UsageRow) => ('meter' in u ? u.meter.id : `gateway-${u.model}`);
  return (a: UsageRow, b: UsageRow) => {
    for (const { field, direction } of [...sort, { field: 'id', direction: 1 as const }]) {
      const [x, y] = field === 'id' ? [idOf(a), idOf(b)] : [value(a, field), value(b, field)];
      if (x !== y) return (x < y ? -1 : 1) * direction;
    }
    return 0;
  };
}

/**
 * Usage is computed at read time from the meters (each resource's runs and prices, folded from its
 * events): the window's started hours per resource and day. A project's meters are read whole (a
 * few hundred resources at most), then sorted and paged here, since cost is not stored.
 */
@QueryHandler(GetUsage)
export class GetUsageHandler implements IQueryHandler<GetUsage> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'now' | 'projections'>) {}

  async execute({ projectId, window, list, toItem }: GetUsage): Promise<ListResult<object>> {
    const now = Date.parse(this.ports.now());
    const end = window.end ?? now;
    const start = window.start ?? startOfMonthOf(end === now ? now : end - 1);
    const meters = await projectMeters(await this.ports.projections.collection(usageMetersProjection), projectId, end);
    const gateway = await gatewayUsageOf(await this.ports.projections.collection(gatewaySpendProjection), projectId, start, end);
    const usage = [...usageOf(meters, start, end, now), ...gateway].sort(compareBy(list.sort));
    const totals = usage.reduce((t, u) => ({ hours: t.hours + ('meter' in u ? u.hours : 0), costCents: t.costCents + u.costCents }), { hours: 0, costCents: 0 });
    const page = usage.slice(list.skip, list.skip + list.limit).map(toItem);
    return listResult(page as never[], usage.length, {
      startDate: new Date(start).toISOString(),
      endDate: new Date(end).toISOString(),
      currency: USAGE_CURRENCY,
      totalHours: totals.hours,
      totalCostCents: totals.costCents,
    });
  }
}

/**
 * Spec 2.10, in the billing currency (USD, the currency usage accrues in). Spend: the invoices paid.
 * Credits: all credited to that wallet (top-ups, promos, payments, conversions in). Upcoming charges:
 * usage accrued since the last closed period, compute hours and inference gateway spend alike. Balances: every wallet of the project. Payments: provider
 * payments settled into a wallet plus invoices paid. Credits counted across wallets.
 */
@QueryHandler(GetBillingOverview)
export class GetBillingOverviewHandler implements IQueryHandler<GetBillingOverview> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'now' | 'projections'>) {}

  async execute({ projectId }: GetBillingOverview): Promise<BillingOverview> {
    const now = Date.parse(this.ports.now());
    const account = await (await this.ports.projections.collection(billingAccountsProjection)).get(projectId);
    const meters = await projectMeters(await this.ports.projections.collection(usageMetersProjection), projectId, now + 1);
    const wallets = (await (await this.ports.projections.collection(billingWalletsProjection)).find({ filter: { projectId }, sort: [{ field: 'currency', direction: 1 }], limit: 10, withTotal: false })).items;
    const credits = await this.ports.projections.collection(billingCreditsProjection);
    const providerPayments = (await credits.find({ filter: { projectId, source: { $in: ['payment', 'checkout'] } }, limit: 1 })).total;
    return {
      projectId: projectOfScope(projectId),
      totalSpendCents: account?.paidCents[USAGE_CURRENCY] ?? 0,
      totalCreditsCents: wallets.find((w) => w.currency === USAGE_CURRENCY)?.creditedCents ?? 0,
      // test-mode usage is never billed (DECISIONS 21)
      upcomingChargesCents: isBilledScope(projectId)
        ? upcomingChargesCents(meters, account?.invoicedThrough ?? null, now) +
          (await upcomingGatewayCents(await this.ports.projections.collection(gatewaySpendProjection), projectId, account?.invoicedThrough ?? null, account?.meteredSince ?? null, now))
        : 0,
      currency: USAGE_CURRENCY,
      balances: wallets.map((w) => ({ currency: w.currency, balanceCents: w.balanceCents })),
      paymentCount: providerPayments + (account?.paidCount ?? 0),
      creditCount: wallets.reduce((n, w) => n + w.creditCount, 0),
      invoiceCount: account?.invoiceCount ?? 0,
    };
  }
}

export const INVOICING_HANDLERS = [CreateInvoiceHandler, PayInvoiceHandler, GetInvoiceHandler, GetInvoicePdfHandler, ListInvoicesHandler, GetUsageHandler, GetBillingOverviewHandler];
