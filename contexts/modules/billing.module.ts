import { BillingEventTypes } from '../../libs/domain/billing/events';
import { InvoicingEventTypes } from '../../libs/domain/invoicing/events';
import { billingAccountsProjection } from '../../projections/billing-accounts/billing-accounts.projection';
import { billingCreditsProjection } from '../../projections/billing-credits/billing-credits.projection';
import { billingWalletsProjection } from '../../projections/billing-wallets/billing-wallets.projection';
import { exchangeRatesProjection } from '../../projections/exchange-rates/exchange-rates.projection';
import { invoicesProjection } from '../../projections/invoices/invoices.projection';
import { usageMetersProjection } from '../../projections/usage-meters/usage-meters.projection';
import { walletConversion } from '../../sagas/wallet-conversion/wallet-conversion';
import { paymentCredits } from '../../sagas/payment-credits/payment-credits';
import { MonthEndInvoicing } from '../../sagas/usage-invoicing/month-end-run';
import { gatewaySpendProjection } from '../../projections/gateway-usage/gateway-usage.projection';
import { UsageInvoicer } from '../../sagas/usage-invoicing/usage-invoicer';
import { InvoicePayments } from '../../sagas/usage-invoicing/invoice-payments';
import { PaymentEventTypes } from '../../libs/domain/billing/payments';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Billing (spec 2.9, 4.12, DECISIONS 9 and 16): wallets per currency (streams `wallet-<project>-<currency>`),
 * their credits, the admin-set exchange rates, payments and checkout sessions, and the process managers
 * that complete a conversion and credit a settled payment or completed checkout; invoices with gapless
 * per-project numbers (`invoice-…`), the compute usage meters folded from the instance and server
 * events, the month-end run (a durable timer over billing_accounts) and the process manager that
 * invoices each closed period. Every event type here is `billing.*`.
 */
export const billingModule: ContextModule = {
  name: 'billing',
  projections: [billingWalletsProjection, billingCreditsProjection, exchangeRatesProjection, invoicesProjection, usageMetersProjection, billingAccountsProjection],
  processManagers: (rt) => [walletConversion(rt.events), paymentCredits(rt.events), new UsageInvoicer(rt.events), new InvoicePayments(rt.events)],
  timers: (rt) => [
    new MonthEndInvoicing({
      events: rt.events,
      accounts: () => rt.projections.collection(billingAccountsProjection),
      meters: () => rt.projections.collection(usageMetersProjection),
      gatewaySpend: () => rt.projections.collection(gatewaySpendProjection),
      metersCaughtUp: async () => rt.consistency.waitForProjections(await rt.events.headPosition(), [usageMetersProjection.name, gatewaySpendProjection.name]),
      clock: rt.clock,
      logger: rt.logger,
    }),
  ],
  eventTypes: [...Object.values(BillingEventTypes), ...Object.values(PaymentEventTypes), ...Object.values(InvoicingEventTypes)],
  unpublished: [InvoicingEventTypes.InvoiceNumberAssigned, BillingEventTypes.WalletReferenceUsed],
};
