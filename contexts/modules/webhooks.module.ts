import { InboundWebhookEventTypes } from '../../libs/domain/webhooks/inbound';
import { InboundWebhookProcessor } from '../../sagas/inbound-webhooks/inbound-webhooks';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Inbound webhooks (DECISIONS 10 and 17): each verified delivery from a payment provider or CI/CD
 * (`inboundwebhook-<source>-<hash>`) is recorded as received, then processed once; what a payment
 * provider's delivery means is recorded by billing. Published on their own topic: a CI/CD delivery
 * is acted on by nobody here, only downstream.
 */
export const webhooksModule: ContextModule = {
  name: 'webhooks',
  projections: [],
  processManagers: (rt) => [new InboundWebhookProcessor(rt.events)],
  eventTypes: Object.values(InboundWebhookEventTypes),
};
