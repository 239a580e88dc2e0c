import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { BillingEventTypes, type ConversionRecord, type CreditSource, type WalletCredited } from '../../libs/domain/billing/events';
import type { Currency } from '../../libs/domain/billing/money';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** One document per wallet credit, whatever its source (GET /v1/billing/credits). */
export interface CreditDoc extends ReadDoc {
  projectId: string;
  currency: Currency;
  amountCents: number;
  source: CreditSource;
  reference: string;
  description: string | null;
  conversion: ConversionRecord | null;
  createdAt: string;
}

export const CREDITS_LIST: ListShape = { query: 'GET /v1/billing/credits', equal: ['projectId'], residual: ['currency', 'source'], sortable: ['createdAt', 'amountCents'] };
const LISTS: ListShape[] = [CREDITS_LIST];

export const billingCreditsProjection: DocumentProjection<CreditDoc> = {
  name: 'billing_credits',
  version: 1,
  eventTypes: [BillingEventTypes.WalletCredited],
  creates: [BillingEventTypes.WalletCredited],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { creditId: string }).creditId,
  evolve: (_current, recorded: RecordedEvent) => {
    const d = (recorded.data as WalletCredited['data']);
    return { id: d.creditId, _position: recorded.position, projectId: d.projectId, currency: d.currency, amountCents: d.amountCents, source: d.source, reference: d.reference, description: d.description, conversion: d.conversion, createdAt: d.creditedAt };
  },
};
