import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { BillingEventTypes, type CreditSource, type WalletCredited } from '../../libs/domain/billing/events';
import { isBilledScope } from '../../libs/domain/shared/scope';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** Money received through a payment provider: a settled payment's credit, a completed checkout's. */
export const REVENUE_SOURCES: readonly CreditSource[] = ['payment', 'checkout'];

/** Revenue of one currency in one calendar month (UTC), summed as the credits arrive. */
export interface RevenueDoc extends ReadDoc {
  currency: string;
  /** `YYYY-MM` of the credit. */
  month: string;
  amountCents: number;
  payments: number;
}

const LISTS: ListShape[] = [{ query: 'GET /v1/admin/analytics (revenue by currency and month)', equal: [], sorts: [[{ field: 'month', direction: -1 }]] }];

const revenueOf = (event: RecordedEvent) => {
  const d = event.data as WalletCredited['data'];
  // test-mode payments (simulated, DECISIONS 21) are not revenue
  return REVENUE_SOURCES.includes(d.source) && isBilledScope(d.projectId) ? d : null;
};

/** Revenue by currency and month (DECISIONS 18 analytics): a few documents, summed from the wallets' payment credits. */
export const revenueProjection: DocumentProjection<RevenueDoc> = {
  name: 'revenue_monthly',
  version: 1,
  eventTypes: [BillingEventTypes.WalletCredited],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => {
    const d = revenueOf(event);
    return d ? `${d.currency}:${d.creditedAt.slice(0, 7)}` : null;
  },
  evolve: (current, recorded) => {
    const d = revenueOf(recorded)!;
    const doc = current ?? { id: `${d.currency}:${d.creditedAt.slice(0, 7)}`, _position: 0, currency: d.currency, month: d.creditedAt.slice(0, 7), amountCents: 0, payments: 0 };
    return { ...doc, _position: recorded.position, amountCents: doc.amountCents + d.amountCents, payments: doc.payments + 1 };
  },
};
