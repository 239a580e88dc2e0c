import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { INBOUND_WEBHOOK_SOURCES } from '../../../../libs/domain/webhooks/inbound';
import { notFound } from '../../../../libs/application/src/errors';
import { SCHEMA_NAME_MARK } from '../../../../libs/http/src/envelope';
import { rawBodyOf } from '../../../../libs/http/src/json-body';
import { ApiRoute, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { ReceiveInboundWebhook, type WebhookReceipt } from '../../../../usecases/webhooks/receive-inbound-webhook';
import { BusController } from '../common/bus-controller';

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
