import { InvoicingEventTypes } from '../../libs/domain/invoicing/events';
import { billingAccountsProjection } from '../../projections/billing-accounts/billing-accounts.projection';
import { invoicesProjection } from '../../projections/invoices/invoices.projection';
import { usageMetersProjection } from '../../projections/usage-meters/usage-meters.projection';
import { MonthEndInvoicing } from '../../sagas/usage-invoicing/month-end-run';
import { UsageInvoicer } from '../../sagas/usage-invoicing/usage-invoicer';
import { InvoicePayments } from '../../sagas/usage-invoicing/invoice-payments';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Invoices and usage (spec 2.9, 4.12, DECISIONS 9 and 16): invoices with gapless per-project numbers,
 * the compute usage meters folded from the instance and server events, the month-end run (a durable
 * timer over billing_accounts) and the process manager that invoices each closed period. Its streams
 * (`invoice-…`) are on the billing topic.
 */
export const invoicingModule: ContextModule = {
  name: 'invoicing',
  projections: [invoicesProjection, usageMetersProjection, billingAccountsProjection],
  processManagers: (rt) => [new UsageInvoicer(rt.events), new InvoicePayments(rt.events)],
  timers: (rt) => [
    new MonthEndInvoicing({
      events: rt.events,
      accounts: () => rt.projections.collection(billingAccountsProjection),
      meters: () => rt.projections.collection(usageMetersProjection),
      metersCaughtUp: async () => rt.consistency.waitForProjections(await rt.events.headPosition(), [usageMetersProjection.name]),
      clock: rt.clock,
      logger: rt.logger,
    }),
  ],
  eventTypes: Object.values(InvoicingEventTypes),
  unpublished: [InvoicingEventTypes.InvoiceNumberAssigned],
};
