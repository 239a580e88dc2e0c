import { BillingEventTypes } from '../../libs/domain/billing/events';
import { billingCreditsProjection } from '../../projections/billing-credits/billing-credits.projection';
import { billingWalletsProjection } from '../../projections/billing-wallets/billing-wallets.projection';
import { exchangeRatesProjection } from '../../projections/exchange-rates/exchange-rates.projection';
import { walletConversion } from '../../sagas/wallet-conversion/wallet-conversion';
import { paymentCredits } from '../../sagas/payment-credits/payment-credits';
import { InboundWebhookProcessor } from '../../sagas/inbound-webhooks/inbound-webhooks';
import { PaymentEventTypes } from '../../libs/domain/billing/payments';
import { InboundWebhookEventTypes } from '../../libs/domain/webhooks/inbound';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Billing (spec 4.12, DECISIONS 9 and 16): wallets per currency (streams `wallet-<project>-<currency>`),
 * their credits, the admin-set exchange rates, payments and checkout sessions, inbound webhooks (DECISIONS
 * 10/17: recorded, then processed once), and the process managers that complete a conversion, credit
 * a settled payment or completed checkout, and process each recorded delivery.
 */
export const billingModule: ContextModule = {
  name: 'billing',
  projections: [billingWalletsProjection, billingCreditsProjection, exchangeRatesProjection],
  processManagers: (rt) => [walletConversion(rt.events), paymentCredits(rt.events), new InboundWebhookProcessor(rt.events)],
  eventTypes: [...Object.values(BillingEventTypes), ...Object.values(PaymentEventTypes), ...Object.values(InboundWebhookEventTypes)],
};
