import { walletStream } from '../../libs/domain/billing/events';
import { referenceStreamOf, walletDecider, walletReferenceUsed, type WalletCommand, type WalletState } from '../../libs/domain/billing/wallet.decider';
import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { CoalescingWriter, type OnceResult } from '../../libs/eventstore/src/coalescing-writer';
import type { CommandContext } from '../../libs/eventstore/src/handle-command';

/** The process managers a wallet write waits for (sagas/ registers them under these names). */
export const WALLET_CONVERSION = 'saga:wallet-conversion';
export const PAYMENT_CREDITS = 'saga:payment-credits';

/** Wallet commands retry a lost revision check this often: each round of concurrent writers to one wallet has one winner. */
export const WALLET_ATTEMPTS = 200;

const walletWriter = new CoalescingWriter(walletDecider, { attempts: WALLET_ATTEMPTS, maxBatch: 256, once: { streamOf: referenceStreamOf, record: walletReferenceUsed } });

/**
 * The one write path of a wallet: fold its stream, decide, append at the expected revision. Within a
 * process the commands of one wallet that arrive while one is written are decided together on one
 * read and appended in one append (each answered as if alone); between processes (a split
 * deployment) the expected revision decides and the losing round retries on the fresh balance. A
 * movement's reference is recorded on its own stream in the same append (at "no stream"): a repeated
 * reference writes nothing and is answered with that record (`repeatOf`, its `movementId`).
 */
export function writeWallet(events: EventStore, command: WalletCommand, context: CommandContext): Promise<OnceResult<WalletState>> {
  return walletWriter.write(events, walletStream(command.projectId, command.currency), command, context);
}
