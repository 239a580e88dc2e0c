import { DomainError, type Decider } from '../shared/domain-error';
import type { ExchangeRateSet } from './events';
import { DEFAULT_RATES, normaliseRate, type Currency } from './money';

/** The rate of one pair: an event-sourced setting, the default table until an admin sets it. */
export type ExchangeRateState = { rate: string | null };
export type SetExchangeRate = { type: 'SetExchangeRate'; from: Currency; to: Currency; rate: string; setBy: string; now: string };

export const rateInForce = (from: Currency, to: Currency, state: ExchangeRateState): string | null => state.rate ?? DEFAULT_RATES[from][to];

export const exchangeRateDecider = (from: Currency, to: Currency): Decider<SetExchangeRate, ExchangeRateSet, ExchangeRateState> => ({
  initialState: () => ({ rate: null }),
  evolve: (_state, event) => ({ rate: event.data.rate }),
  decide: (command, state) => {
    if (command.from === command.to) throw new DomainError('BAD_REQUEST', 'A rate converts between two different currencies');
    const rate = normaliseRate(command.rate);
    const previousRate = rateInForce(from, to, state) ?? '';
    if (state.rate === rate) return [];
    return [{ type: 'billing.ExchangeRateSet.v1', data: { from, to, rate, previousRate, setBy: command.setBy, setAt: command.now } }];
  },
});
