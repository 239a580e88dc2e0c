import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { BillingEventTypes, type ExchangeRateSet } from '../../libs/domain/billing/events';
import type { Currency } from '../../libs/domain/billing/money';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** The admin-set rate of a pair (`USD-NGN`); a pair without one uses the default table. */
export interface ExchangeRateDoc extends ReadDoc {
  projectId: null;
  from: Currency;
  to: Currency;
  rate: string;
  setBy: string;
  updatedAt: string;
}

export const rateId = (from: Currency, to: Currency) => `${from}-${to}`;

export const exchangeRatesProjection: DocumentProjection<ExchangeRateDoc> = {
  name: 'exchange_rates',
  version: 1,
  eventTypes: [BillingEventTypes.ExchangeRateSet],
  documentId: (event) => rateId((event.data as ExchangeRateSet['data']).from, (event.data as ExchangeRateSet['data']).to),
  evolve: (_current, recorded: RecordedEvent) => {
    const d = recorded.data as ExchangeRateSet['data'];
    return { id: rateId(d.from, d.to), _position: recorded.position, projectId: null, from: d.from, to: d.to, rate: d.rate, setBy: d.setBy, updatedAt: d.setAt };
  },
};
