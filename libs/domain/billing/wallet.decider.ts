import { DomainError, type Decider } from '../shared/domain-error';
import type { ConversionRecord, CreditSource, DebitSource, WalletCredited, WalletDebited, WalletEvent } from './events';
import { checkAmount, convertCents, type Currency } from './money';

/**
 * A wallet (DECISIONS 9 and 16): its balance is the sum of its events. A debit beyond the balance is
 * refused INSUFFICIENT_FUNDS; appended at the stream's expected revision, two concurrent debits can
 * never both spend the same cents. A reference credits (or debits) a wallet at most once: a repeat
 * decides nothing.
 */
export interface WalletState {
  balanceCents: number;
  /** reference → creditId / debitId: what a repeated reference answers with. */
  credited: ReadonlyMap<string, string>;
  debited: ReadonlyMap<string, string>;
}

interface Movement {
  projectId: string;
  currency: Currency;
  amountCents: number;
  reference: string;
  description: string | null;
  conversion: ConversionRecord | null;
  now: string;
}
export type CreditWallet = Movement & { type: 'CreditWallet'; creditId: string; source: CreditSource };
export type DebitWallet = Movement & { type: 'DebitWallet'; debitId: string; source: DebitSource };
export type WalletCommand = CreditWallet | DebitWallet;

const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  snapshot: { name: 'wallet', version: 1, every: 100 },
  initialState: () => ({ balanceCents: 0, credited: new Map(), debited: new Map() }),
  // The maps are extended in place: a fold owns its state, and copying them per event would make a
  // long wallet's fold quadratic.
  evolve: (state, event) => {
    if (event.type === 'billing.WalletCredited.v1') {
      (state.credited as Map<string, string>).set(event.data.reference, event.data.creditId);
      return { ...state, balanceCents: state.balanceCents + event.data.amountCents };
    }
    (state.debited as Map<string, string>).set(event.data.reference, event.data.debitId);
    return { ...state, balanceCents: state.balanceCents - event.data.amountCents };
  },
  decide: (command, state) => {
    checkAmount(command.amountCents);
    if (!command.reference) throw new DomainError('BAD_REQUEST', 'A wallet movement needs a reference');
    const { projectId, currency, amountCents, reference, description, conversion, now } = command;
    if (command.type === 'CreditWallet') {
      if (state.credited.has(reference)) return [];
      if (state.balanceCents + amountCents > MAX_BALANCE) throw new DomainError('BAD_REQUEST', 'The balance would exceed the largest amount a wallet holds');
      const credited: WalletCredited = {
        type: 'billing.WalletCredited.v1',
        data: { projectId, currency, creditId: command.creditId, amountCents, balanceCents: state.balanceCents + amountCents, source: command.source, reference, description, conversion, creditedAt: now },
      };
      return [credited];
    }
    if (state.debited.has(reference)) return [];
    if (conversion) checkConversion(command, conversion);
    if (amountCents > state.balanceCents) throw new DomainError('INSUFFICIENT_FUNDS', `Insufficient funds: the ${currency} wallet holds ${state.balanceCents} cents, ${amountCents} asked`);
    const debited: WalletDebited = {
      type: 'billing.WalletDebited.v1',
      data: { projectId, currency, debitId: command.debitId, amountCents, balanceCents: state.balanceCents - amountCents, source: command.source, reference, description, conversion, debitedAt: now },
    };
    return [debited];
  },
};

/**
 * A conversion's debit records its whole decision: the rate in force and the converted amount,
 * rounded down to whole cents. It is refused when it would credit nothing.
 */
export function planConversion(conversionId: string, fromCurrency: Currency, toCurrency: Currency, fromAmountCents: number, rate: string): ConversionRecord {
  checkAmount(fromAmountCents);
  if (fromCurrency === toCurrency) throw new DomainError('BAD_REQUEST', 'A conversion needs two different currencies');
  const toAmountCents = convertCents(fromAmountCents, rate);
  if (toAmountCents < 1) throw new DomainError('BAD_REQUEST', `${fromAmountCents} ${fromCurrency} cents convert to less than one ${toCurrency} cent at ${rate}`);
  return { conversionId, fromCurrency, toCurrency, fromAmountCents, toAmountCents, rate };
}

function checkConversion(command: DebitWallet, c: ConversionRecord): void {
  const expected = planConversion(c.conversionId, c.fromCurrency, c.toCurrency, c.fromAmountCents, c.rate);
  if (command.source !== 'conversion' || c.fromCurrency !== command.currency || c.fromAmountCents !== command.amountCents || c.toAmountCents !== expected.toAmountCents || command.reference !== c.conversionId)
    throw new DomainError('BAD_REQUEST', 'A conversion debit must debit the converted amount of its own wallet');
}
