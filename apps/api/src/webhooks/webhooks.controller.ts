import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { INBOUND_WEBHOOK_SOURCES, inboundWebhookDecider, inboundWebhookStream, type InboundWebhookSource } from '../../../../libs/domain/webhooks/inbound';
import { handleCommand } from '../../../../libs/eventstore/src/handle-command';
import { AppError, notFound } from '../../../../libs/application/src/errors';
import { SCHEMA_NAME_MARK } from '../../../../libs/http/src/envelope';
import { rawBodyOf } from '../../../../libs/http/src/json-body';
import { ApiRoute, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { INBOUND_WEBHOOKS } from '../../../../sagas/inbound-webhooks/inbound-webhooks';
import { BusController } from '../common/bus-controller';
import { PORTS } from '../tokens';
import { storedHeaders, verifyDelivery } from './webhook-signatures';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

export interface WebhookReceipt {
  received: boolean;
  processed: boolean;
}

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
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'clock' | 'config' | 'consistency' | 'events' | 'logger' | 'now'>) {}

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

// Named (WebhookReceipt) so generated clients get a type; it has no id of its own to make it a resource.
const receiptSchema = z.object({
  data: z.object({ type: z.literal('webhook-receipt'), attributes: z.object({ received: z.boolean(), processed: z.boolean() }) }).meta({ [SCHEMA_NAME_MARK]: 'WebhookReceipt' }),
});
const receiveRoute = route({
  method: 'POST',
  path: '/v1/webhooks/{source}',
  summary: 'Receive a signed delivery from a payment provider (stripe, paystack) or a CI/CD system (github); no API key',
  description:
    'Each source verifies its own signature over the raw body: Stripe-Signature (5-minute tolerance), x-paystack-signature (HMAC-SHA512), X-Hub-Signature-256 with X-GitHub-Delivery. Bad or missing signature 401, unknown source 404. A delivery is stored as received, then processed once; a replayed delivery is acknowledged and not processed again.',
  tag: 'Webhooks',
  auth: 'none',
  params: z.object({ source: z.string().min(1).max(64) }),
  responses: { 200: receiptSchema },
});

@Controller()
export class InboundWebhooksController extends BusController {
  @ApiRoute(receiveRoute)
  async receive(@Req() req: FastifyRequest, @Parsed('params') params: RouteInput<typeof receiveRoute>['params']) {
    const source = INBOUND_WEBHOOK_SOURCES.find((s) => s === params.source);
    if (!source) throw notFound(`Unknown webhook source ${params.source}`);
    const receipt: WebhookReceipt = await this.commands.execute(new ReceiveInboundWebhook(source, rawBodyOf(req) ?? '', req.headers, req.id));
    return { data: { type: 'webhook-receipt', attributes: receipt } };
  }
}

export const WEBHOOK_HANDLERS = [ReceiveInboundWebhookHandler];
