import { DomainError, type Decider } from '../shared/domain-error';
import { walletReferenceStream, walletStream, type ConversionRecord, type CreditSource, type DebitSource, type WalletCredited, type WalletDebited, type WalletEvent, type WalletReferenceUsed } from './events';
import { checkAmount, convertCents, type Currency } from './money';

/**
 * A wallet (DECISIONS 9 and 16): its balance is the sum of its events. A debit beyond the balance is
 * refused INSUFFICIENT_FUNDS; appended at the stream's expected revision, two concurrent debits can
 * never both spend the same cents. A reference credits (or debits) a wallet at most once: not decided
 * here but by the reference's own stream (`walletReferenceUsed`, appended at "no stream" with the
 * movement by `writeWallet`), so the state stays one number however many references the wallet saw.
 */
export interface WalletState {
  balanceCents: number;
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
  // Version 2: the state no longer holds the references (version 1 snapshots are not read).
  snapshot: { name: 'wallet', version: 2, every: 100 },
  initialState: () => ({ balanceCents: 0 }),
  evolve: (state, event) => ({ balanceCents: state.balanceCents + (event.type === 'billing.WalletCredited.v1' ? event.data.amountCents : -event.data.amountCents) }),
  decide: (command, state) => {
    checkAmount(command.amountCents);
    if (!command.reference) throw new DomainError('BAD_REQUEST', 'A wallet movement needs a reference');
    const { projectId, currency, amountCents, reference, description, conversion, now } = command;
    if (command.type === 'CreditWallet') {
      if (state.balanceCents + amountCents > MAX_BALANCE) throw new DomainError('BAD_REQUEST', 'The balance would exceed the largest amount a wallet holds');
      const credited: WalletCredited = {
        type: 'billing.WalletCredited.v1',
        data: { projectId, currency, creditId: command.creditId, amountCents, balanceCents: state.balanceCents + amountCents, source: command.source, reference, description, conversion, creditedAt: now },
      };
      return [credited];
    }
    if (conversion) checkConversion(command, conversion);
    if (amountCents > state.balanceCents) throw new DomainError('INSUFFICIENT_FUNDS', `Insufficient funds: the ${currency} wallet holds ${state.balanceCents} cents, ${amountCents} asked`);
    const debited: WalletDebited = {
      type: 'billing.WalletDebited.v1',
      data: { projectId, currency, debitId: command.debitId, amountCents, balanceCents: state.balanceCents - amountCents, source: command.source, reference, description, conversion, debitedAt: now },
    };
    return [debited];
  },
};

/** The stream that records the use of the command's reference (one per wallet, direction and reference). */
export const referenceStreamOf = (command: WalletCommand): string =>
  walletReferenceStream(command.projectId, command.currency, command.type === 'CreditWallet' ? 'credit' : 'debit', command.reference);

/** The record of the command's reference, appended with its movement; a repeat of the reference answers with `movementId`. */
export function walletReferenceUsed(command: WalletCommand): WalletReferenceUsed {
  const credit = command.type === 'CreditWallet';
  return {
    type: 'billing.WalletReferenceUsed.v1',
    data: { projectId: command.projectId, currency: command.currency, kind: credit ? 'credit' : 'debit', reference: command.reference, movementId: credit ? command.creditId : command.debitId, walletStream: walletStream(command.projectId, command.currency) },
  };
}

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
