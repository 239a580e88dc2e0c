import { v7 as uuidv7 } from 'uuid';
import type { WalletDebited } from '../../libs/domain/billing/events';
import type { CreditWallet } from '../../libs/domain/billing/wallet.decider';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy } from '../../libs/eventstore/src/handle-command';
import { WALLET_CONVERSION, writeWallet } from '../../usecases/billing/wallet-writes';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';

/**
 * A process manager that credits wallets from the events that decide a credit (a conversion's debit,
 * a settled payment, a completed checkout), on a checkpointed subscription. Each credit's reference
 * comes from its cause, so a replay after a crash credits nothing twice.
 */
export class WalletCreditor implements SubscriptionHandler {
  constructor(
    readonly name: string,
    private readonly events: EventStore,
    private readonly creditsOf: (event: RecordedEvent) => CreditWallet[],
  ) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let wrote = false;
    for (const e of batch) {
      for (const credit of this.creditsOf(e)) {
        const metadata = causedBy(e, { projectId: credit.projectId, actor: `system:${credit.source}:${credit.reference}`, correlationId: String(e.metadata.correlationId ?? e.id) });
        const result = await writeWallet(this.events, credit, { metadata });
        wrote ||= result.position !== null;
      }
    }
    return wrote;
  }
}

/**
 * A conversion is decided once, by its debit of the source wallet (WalletDebited with `conversion`:
 * rate, both amounts); the target wallet's credit follows from that event with the conversion id as
 * its reference: a crash after the debit is followed by the credit when the subscription resumes, so
 * the two halves cannot be separated, with no multi-stream transaction.
 */
export function conversionCredits(e: RecordedEvent): CreditWallet[] {
  if (e.type !== 'billing.WalletDebited.v1') return [];
  const d = e.data as WalletDebited['data'];
  const c = d.conversion;
  if (d.source !== 'conversion' || !c) return [];
  return [{ type: 'CreditWallet', projectId: d.projectId, currency: c.toCurrency, amountCents: c.toAmountCents, creditId: uuidv7(), source: 'conversion', reference: c.conversionId, description: `Conversion of ${c.fromAmountCents} ${c.fromCurrency} cents at ${c.rate}`, conversion: c, now: d.debitedAt }];
}

export const walletConversion = (events: EventStore) => new WalletCreditor(WALLET_CONVERSION, events, conversionCredits);
