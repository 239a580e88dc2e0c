import type { DomainEvent } from '../shared/domain-error';
import type { Currency } from './money';

/** Where a credit comes from (DECISIONS 16): each credit carries its source and reference. */
export const CREDIT_SOURCES = ['top-up', 'promo', 'conversion', 'payment', 'checkout', 'refund'] as const;
export type CreditSource = (typeof CREDIT_SOURCES)[number];
/** What a debit pays for: a direct debit, an invoice (reference: the invoice id) or a conversion. */
export const DEBIT_SOURCES = ['debit', 'invoice', 'conversion'] as const;
export type DebitSource = (typeof DEBIT_SOURCES)[number];

/** A conversion as both of its events record it: the rate in force and both amounts. */
export interface ConversionRecord {
  conversionId: string;
  fromCurrency: Currency;
  toCurrency: Currency;
  fromAmountCents: number;
  toAmountCents: number;
  /** The rate used (decimal string): toAmountCents = floor(fromAmountCents × rate). */
  rate: string;
}

export type WalletCredited = DomainEvent<
  'billing.WalletCredited.v1',
  {
    projectId: string;
    currency: Currency;
    creditId: string;
    amountCents: number;
    /** The balance after this credit (the sum of the stream up to here). */
    balanceCents: number;
    source: CreditSource;
    /** Unique per wallet among credits: a second credit with it changes nothing. */
    reference: string;
    description: string | null;
    conversion: ConversionRecord | null;
    creditedAt: string;
  }
>;

export type WalletDebited = DomainEvent<
  'billing.WalletDebited.v1',
  {
    projectId: string;
    currency: Currency;
    debitId: string;
    amountCents: number;
    balanceCents: number;
    source: DebitSource;
    /** Unique per wallet among debits (an invoice is paid from a wallet once). */
    reference: string;
    description: string | null;
    /** Set on a conversion's debit: the decision the credit of the other wallet follows from. */
    conversion: ConversionRecord | null;
    debitedAt: string;
  }
>;

export type WalletEvent = WalletCredited | WalletDebited;

/**
 * The record that a reference moved money on a wallet (one direction): the one event of its own
 * stream (`walletReferenceStream`), appended at "no stream" in one multi-stream append with the
 * movement, so a reference moves money once while the wallet's state stays its balance alone.
 */
export type WalletReferenceUsed = DomainEvent<
  'billing.WalletReferenceUsed.v1',
  { projectId: string; currency: Currency; kind: 'credit' | 'debit'; reference: string; movementId: string; walletStream: string }
>;

export type ExchangeRateSet = DomainEvent<'billing.ExchangeRateSet.v1', { from: Currency; to: Currency; rate: string; previousRate: string; setBy: string; setAt: string }>;

export const BillingEventTypes = {
  WalletCredited: 'billing.WalletCredited.v1',
  WalletDebited: 'billing.WalletDebited.v1',
  ExchangeRateSet: 'billing.ExchangeRateSet.v1',
  WalletReferenceUsed: 'billing.WalletReferenceUsed.v1',
} as const;

/** One stream per project and currency (category `wallet`: the billing topic). */
export const walletStream = (projectId: string, currency: Currency) => `wallet-${projectId}-${currency}`;
/** The stream recording the use of a wallet movement's reference (category `walletref`: billing). */
export const walletReferenceStream = (projectId: string, currency: Currency, kind: 'credit' | 'debit', reference: string) => `walletref-${projectId}-${currency}-${kind}-${reference}`;
export const walletId = (projectId: string, currency: Currency) => `${projectId}:${currency}`;
/** One stream per currency pair: the admin-set rate history. */
export const exchangeRateStream = (from: Currency, to: Currency) => `exchangerate-${from}-${to}`;
