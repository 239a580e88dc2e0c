import { v7 as uuidv7 } from 'uuid';
import { walletStream, type WalletDebited } from '../../libs/domain/billing/events';
import { walletDecider } from '../../libs/domain/billing/wallet.decider';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';

export const WALLET_CONVERSION = 'saga:wallet-conversion';

/**
 * A conversion is decided once, by its debit of the source wallet (WalletDebited with `conversion`:
 * rate, both amounts). This process manager credits the target wallet from that event, on a
 * checkpointed subscription, with the conversion id as the credit's reference: a crash after the
 * debit is followed by the credit when the subscription resumes, and a replayed debit credits nothing
 * twice. So the two halves cannot be separated by a crash, with no multi-stream transaction.
 */
export class WalletConversion implements SubscriptionHandler {
  readonly name = WALLET_CONVERSION;

  constructor(private readonly events: EventStore) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let wrote = false;
    for (const e of batch) {
      if (e.type !== 'billing.WalletDebited.v1') continue;
      const d = e.data as WalletDebited['data'];
      const c = d.conversion;
      if (d.source !== 'conversion' || !c) continue;
      const metadata = { projectId: d.projectId, actor: `system:conversion:${c.conversionId}`, correlationId: String(e.metadata.correlationId ?? e.id), causationId: e.id };
      const command = { type: 'CreditWallet' as const, projectId: d.projectId, currency: c.toCurrency, amountCents: c.toAmountCents, creditId: uuidv7(), source: 'conversion' as const, reference: c.conversionId, description: `Conversion of ${c.fromAmountCents} ${c.fromCurrency} cents at ${c.rate}`, conversion: c, now: d.debitedAt };
      const result = await handleCommand(this.events, walletStream(d.projectId, c.toCurrency), walletDecider, command, { metadata }, { attempts: WALLET_ATTEMPTS });
      wrote ||= result.position !== null;
    }
    return wrote;
  }
}

/** Wallet commands retry a lost revision check this often: each round of concurrent writers to one wallet has one winner. */
export const WALLET_ATTEMPTS = 200;
