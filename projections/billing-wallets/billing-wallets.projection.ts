import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { BillingEventTypes, walletId, type WalletEvent } from '../../libs/domain/billing/events';
import type { Currency } from '../../libs/domain/billing/money';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** A wallet's balance: the sum of its stream's events (credits minus debits), with their counts. */
export interface WalletDoc extends ReadDoc {
  projectId: string;
  currency: Currency;
  balanceCents: number;
  creditedCents: number;
  debitedCents: number;
  creditCount: number;
  debitCount: number;
  createdAt: string;
  updatedAt: string;
}

/** A project has one wallet per currency (two): GET /v1/billing/wallets reads them by project. */
const LISTS: ListShape[] = [{ query: 'GET /v1/billing/wallets', equal: ['projectId'], sortable: ['currency'] }];

export const emptyWallet = (projectId: string, currency: Currency, at: string): WalletDoc => ({
  id: walletId(projectId, currency),
  _position: 0,
  projectId,
  currency,
  balanceCents: 0,
  creditedCents: 0,
  debitedCents: 0,
  creditCount: 0,
  debitCount: 0,
  createdAt: at,
  updatedAt: at,
});

export const billingWalletsProjection: DocumentProjection<WalletDoc> = {
  name: 'billing_wallets',
  version: 1,
  eventTypes: [BillingEventTypes.WalletCredited, BillingEventTypes.WalletDebited],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => {
    const d = event.data as { projectId: string; currency: Currency };
    return walletId(d.projectId, d.currency);
  },
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as WalletEvent;
    const d = event.data;
    const at = event.type === 'billing.WalletCredited.v1' ? event.data.creditedAt : event.data.debitedAt;
    const doc = current ?? emptyWallet(d.projectId, d.currency, at);
    if (event.type === 'billing.WalletCredited.v1')
      return { ...doc, _position: recorded.position, balanceCents: doc.balanceCents + d.amountCents, creditedCents: doc.creditedCents + d.amountCents, creditCount: doc.creditCount + 1, updatedAt: at };
    return { ...doc, _position: recorded.position, balanceCents: doc.balanceCents - d.amountCents, debitedCents: doc.debitedCents + d.amountCents, debitCount: doc.debitCount + 1, updatedAt: at };
  },
};
