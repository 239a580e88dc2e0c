import { v7 as uuidv7 } from 'uuid';
import { checkoutPromoReference, type CheckoutCompleted, type PaymentSettled } from '../../libs/domain/billing/payments';
import type { CreditWallet } from '../../libs/domain/billing/wallet.decider';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { PAYMENT_CREDITS } from '../../usecases/billing/wallet-writes';
import { WalletCreditor } from '../wallet-conversion/wallet-conversion';


/**
 * Credits the wallet once a payment settled or a checkout completed: the credit's reference is the
 * payment's (or the checkout's), so a replay after a crash, a second verify or a late webhook credits
 * nothing twice (DECISIONS 16). A checkout's promo is its own credit (source promo).
 */
export const paymentCredits = (events: EventStore) => new WalletCreditor(PAYMENT_CREDITS, events, creditsOf);

function creditsOf(e: RecordedEvent): CreditWallet[] {
  const base = { type: 'CreditWallet' as const, conversion: null };
  if (e.type === 'billing.PaymentSettled.v1') {
    const d = e.data as PaymentSettled['data'];
    return [{ ...base, projectId: d.projectId, currency: d.currency, amountCents: d.amountCents, creditId: uuidv7(), source: 'payment', reference: d.reference, description: `${d.provider} payment ${d.reference}`, now: d.settledAt }];
  }
  if (e.type === 'billing.CheckoutCompleted.v1') {
    const d = e.data as CheckoutCompleted['data'];
    const credits: CreditWallet[] = [{ ...base, projectId: d.projectId, currency: d.currency, amountCents: d.amountCents, creditId: uuidv7(), source: 'checkout', reference: d.checkoutId, description: `Checkout ${d.checkoutId}`, now: d.completedAt }];
    if (d.promo)
      credits.push({ ...base, projectId: d.projectId, currency: d.promo.currency, amountCents: d.promo.amountCents, creditId: uuidv7(), source: 'promo', reference: checkoutPromoReference(d.checkoutId), description: `Promo code ${d.promo.code}`, now: d.completedAt });
    return credits;
  }
  return [];
}
