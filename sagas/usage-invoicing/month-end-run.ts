import type pino from 'pino';
import { v5 as uuidv5 } from 'uuid';
import { USAGE_CURRENCY, usageBillingStream } from '../../libs/domain/invoicing/events';
import { startOfMonth, startOfNextMonth, usageBillingDecider } from '../../libs/domain/invoicing/usage';
import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { Clock } from '../../libs/runtime/src/clock';
import { PollingTimer } from '../../libs/runtime/src/polling-timer';
import type { BillingAccountDoc } from '../../projections/billing-accounts/billing-accounts.projection';
import type { UsageMeterDoc } from '../../projections/usage-meters/usage-meters.projection';
import { projectMeters, usageLines } from '../../usecases/invoicing/project-usage';
import { gatewayLines, gatewayUsageOf } from '../../usecases/invoicing/gateway-usage';
import type { GatewaySpendDoc } from '../../projections/gateway-usage/gateway-usage.projection';

/** Namespace of the ids of usage invoices: uuid v5 of `<projectId>/<periodStart>`, the same on every replay. */
const USAGE_INVOICE_NAMESPACE = '6f0b7a52-7d1e-4c1a-9a51-0c3c2e1f6b7d';
export const usageInvoiceId = (projectId: string, periodStart: string) => uuidv5(`${projectId}/${periodStart}`, USAGE_INVOICE_NAMESPACE);

export interface MonthEndRunDeps {
  events: EventStore;
  accounts: () => Promise<ReadCollection<BillingAccountDoc>>;
  meters: () => Promise<ReadCollection<UsageMeterDoc>>;
  /** The inference gateway's spend per key, model and day: billed with the compute usage (DECISIONS 19). */
  gatewaySpend: () => Promise<ReadCollection<GatewaySpendDoc>>;
  /** Resolves once the usage meters have caught up with the log (a stop recorded just before month end must count). */
  metersCaughtUp: () => Promise<boolean>;
  clock: Clock;
  logger: pino.Logger;
}

/**
 * The month-end invoice run (DECISIONS 16). Its durable timer is `nextRunAt` of the billing_accounts
 * read model (projected from events: a restart re-arms it). When a project's month has ended, the run
 * closes the period on the project's billing stream (`billing.UsagePeriodClosed.v1` with each
 * resource's started hours and price); the stream refuses to close a period twice, so a second run
 * (a restart, a second worker, a poll on a stale read model) changes nothing. The invoice is issued
 * from that event by the usage invoicer (a checkpointed process manager).
 */
export class MonthEndInvoicing extends PollingTimer {
  constructor(
    private readonly deps: MonthEndRunDeps,
    intervalMs = 5000,
  ) {
    super(deps.clock, deps.logger, intervalMs, 'month-end run');
  }

  protected async poll(now: number): Promise<void> {
    const accounts = await this.deps.accounts();
    const due = await accounts.find({ filter: { runArmed: true, nextRunAt: { $lte: new Date(now).toISOString() } }, sort: [{ field: 'nextRunAt', direction: 1 }], limit: 100, withTotal: false });
    if (due.items.length === 0 || !(await this.deps.metersCaughtUp())) return;
    for (const account of due.items) {
      await this.closeEndedPeriods(account, now).catch((err) => this.logger.warn({ err: String(err), projectId: account.projectId }, 'month-end run failed; retrying on the next tick'));
    }
  }

  /** Closes every whole month since the last closed one, oldest first (a run missed for months catches up month by month). */
  private async closeEndedPeriods(account: BillingAccountDoc, now: number): Promise<void> {
    let start = account.invoicedThrough ? Date.parse(account.invoicedThrough) : startOfMonth(Date.parse(account.meteredSince!));
    const meters = await projectMeters(await this.deps.meters(), account.projectId, now);
    for (let end = startOfNextMonth(start); end <= now; start = end, end = startOfNextMonth(start)) {
      const periodStart = new Date(start).toISOString();
      const command = {
        type: 'CloseUsagePeriod' as const,
        projectId: account.projectId,
        periodStart,
        periodEnd: new Date(end).toISOString(),
        currency: USAGE_CURRENCY,
        lines: [...usageLines(meters, start, end, now), ...gatewayLines(await gatewayUsageOf(await this.deps.gatewaySpend(), account.projectId, start, end))],
        invoiceId: usageInvoiceId(account.projectId, periodStart),
        now: new Date(now).toISOString(),
      };
      await handleCommand(this.deps.events, usageBillingStream(account.projectId), usageBillingDecider, command, { metadata: { projectId: account.projectId, actor: 'system:month-end-run' } });
    }
  }
}
