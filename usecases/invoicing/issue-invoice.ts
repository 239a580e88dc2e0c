import { invoiceNumbersStream, invoiceStream } from '../../libs/domain/invoicing/events';
import { invoiceDecider, invoiceNumberDecider, type IssueInvoice } from '../../libs/domain/invoicing/invoice.decider';
import { lineItemsTotal } from '../../libs/domain/invoicing/tax';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { assignNumber } from '../../libs/eventstore/src/assign-number';
import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';

/**
 * Issues an invoice: its number from the project's gapless sequence first (appended at its expected
 * revision, so concurrent creates take distinct numbers), then the invoice's own stream (new). The
 * amounts are checked before a number is taken, so a refused invoice leaves no gap; only a crash
 * between the two appends can.
 */
export async function issueInvoice(events: EventStore, command: Omit<IssueInvoice, 'type' | 'invoiceNumber'>, context: CommandContext): Promise<{ position: number | null }> {
  if (command.lineItems.length > 0 && lineItemsTotal(command.lineItems) !== command.amountCents) {
    throw new DomainError('BAD_REQUEST', `lineItems add up to ${lineItemsTotal(command.lineItems)} cents, not amountCents ${command.amountCents}`);
  }
  const { number } = await assignNumber(events, invoiceNumbersStream(command.projectId), invoiceNumberDecider, { projectId: command.projectId, ownerId: command.invoiceId, now: command.now }, context);
  const { position } = await handleCommand(events, invoiceStream(command.invoiceId), invoiceDecider, { type: 'IssueInvoice', ...command, invoiceNumber: number }, context, { newStream: true });
  return { position };
}
