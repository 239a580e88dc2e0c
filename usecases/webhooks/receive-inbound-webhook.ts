import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { inboundWebhookDecider, inboundWebhookStream, type InboundWebhookSource } from '../../libs/domain/webhooks/inbound';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { AppError } from '../../libs/application/src/errors';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { InjectPorts } from '../inject-ports';
import { storedHeaders, verifyDelivery } from './webhook-signatures';

/** The process manager that processes a received delivery (sagas/inbound-webhooks), whose checkpoint a receipt waits for. */
export const INBOUND_WEBHOOKS = 'saga:inbound-webhooks';

export interface WebhookReceipt {
  received: boolean;
  processed: boolean;
}

/** A delivery as it arrived: the raw body its signature covers, and the headers that carry the signature. */
export class ReceiveInboundWebhook extends Command<WebhookReceipt> {
  constructor(
    readonly source: InboundWebhookSource,
    readonly rawBody: string,
    readonly headers: Record<string, string | string[] | undefined>,
    readonly requestId: string,
  ) {
    super();
  }
}

/**
 * Verifies the signature over the raw body, records the delivery as received (a replayed delivery id
 * finds its stream and records nothing), then waits, bounded, for the checkpointed processor and
 * answers whether the delivery has been processed.
 */
@CommandHandler(ReceiveInboundWebhook)
export class ReceiveInboundWebhookHandler implements ICommandHandler<ReceiveInboundWebhook> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'config' | 'consistency' | 'events' | 'logger' | 'now'>) {}

  async execute({ source, rawBody, headers, requestId }: ReceiveInboundWebhook): Promise<WebhookReceipt> {
    const verified = verifyDelivery(source, rawBody, headers, this.ports.config, this.ports.clock.now());
    if (!verified.ok) {
      this.ports.logger.info({ source, reason: verified.reason }, 'inbound webhook refused');
      throw new AppError('UNAUTHORIZED', 'Invalid webhook signature');
    }
    const stream = inboundWebhookStream(source, verified.deliveryId);
    const command = { type: 'ReceiveWebhook' as const, source, deliveryId: verified.deliveryId, headers: storedHeaders(headers), body: rawBody, receivedAt: this.ports.now() };
    const { position } = await handleCommand(this.ports.events, stream, inboundWebhookDecider, command, { metadata: { actor: `webhook:${source}`, requestId, correlationId: requestId } });
    const last = (await this.ports.events.readStream(stream)).at(-1)!;
    if (position !== null || last.type !== 'webhooks.InboundWebhookProcessed.v1') await this.ports.consistency.waitForSaga(INBOUND_WEBHOOKS, position ?? last.position, stream, []);
    const processed = (await this.ports.events.readStream(stream)).some((e) => e.type === 'webhooks.InboundWebhookProcessed.v1');
    return { received: true, processed };
  }
}

export const WEBHOOK_HANDLERS = [ReceiveInboundWebhookHandler];
