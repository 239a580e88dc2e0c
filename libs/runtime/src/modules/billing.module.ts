import { BillingEventTypes } from '../../../domain/billing/events';
import { billingCreditsProjection } from '../../../../projections/billing-credits/billing-credits.projection';
import { billingWalletsProjection } from '../../../../projections/billing-wallets/billing-wallets.projection';
import { exchangeRatesProjection } from '../../../../projections/exchange-rates/exchange-rates.projection';
import { WalletConversion } from '../../../../sagas/wallet-conversion/wallet-conversion';
import type { ContextModule } from '../context-module';

/**
 * Billing (spec 4.12, DECISIONS 9 and 16): wallets per currency (streams `wallet-<project>-<currency>`),
 * their credits, the admin-set exchange rates, and the process manager that completes a conversion.
 */
export const billingModule: ContextModule = {
  name: 'billing',
  projections: [billingWalletsProjection, billingCreditsProjection, exchangeRatesProjection],
  processManagers: (rt) => [new WalletConversion(rt.events)],
  eventTypes: Object.values(BillingEventTypes),
};
