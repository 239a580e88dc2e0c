import { CONTEXT_MODULES } from '../../../../contexts/registrations';
import { CLOUDEVENTS_CONTENT_TYPE, INTERNAL_CONTEXTS, topicForContext } from '../../../../libs/messaging/src/cloudevents';
import type { ContextModule } from '../../../../libs/runtime/src/context-module';

type Json = Record<string, unknown>;

/** The CloudEvent every topic carries (libs/messaging toCloudEvent), as a JSON Schema. */
const CLOUD_EVENT: Json = {
  type: 'object',
  required: ['specversion', 'id', 'type', 'source', 'subject', 'time', 'datacontenttype', 'data', 'position', 'streamrevision', 'livemode'],
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string' },
    type: { type: 'string', description: '`<context>.<Name>.v<N>`' },
    source: { type: 'string', description: '`/v1/projects/<project id>`, or `/cloud-api` for an event of no project' },
    subject: { type: 'string', description: 'The stream the event belongs to' },
    time: { type: 'string', format: 'date-time' },
    datacontenttype: { const: 'application/json' },
    data: { type: 'object', description: 'The event as recorded, secrets stripped' },
    position: { type: 'integer', minimum: 1, description: "The event's place in the global log" },
    streamrevision: { type: 'integer', minimum: 0 },
    correlationid: { type: 'string' },
    causationid: { type: 'string' },
    livemode: { type: 'boolean', description: 'false for an event of test mode' },
  },
};

/**
 * The AsyncAPI 3 document of the topics (DECISIONS 20), generated from the registered contexts:
 * each context's topic `cloud.<context>.events.v1` is a channel, each of its event types a message
 * whose payload is the CloudEvent of that type and whose headers are those the Kafka relay sets.
 */
export function asyncApiDocument(options: { topicPrefix?: string; brokers?: string[]; modules?: readonly ContextModule[] } = {}): Json {
  const prefix = options.topicPrefix ?? 'cloud';
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  for (const m of options.modules ?? CONTEXT_MODULES) {
    if (INTERNAL_CONTEXTS.includes(m.name) || m.eventTypes.length === 0) continue;
    const refs: Json = {};
    for (const type of [...m.eventTypes].sort()) {
      messages[type] = {
        name: type,
        title: type,
        contentType: CLOUDEVENTS_CONTENT_TYPE,
        headers: {
          type: 'object',
          required: ['ce_id', 'ce_type', 'content-type'],
          properties: { ce_id: { type: 'string' }, ce_type: { const: type }, 'content-type': { const: CLOUDEVENTS_CONTENT_TYPE } },
        },
        payload: { allOf: [{ $ref: '#/components/schemas/CloudEvent' }, { type: 'object', properties: { type: { const: type } } }] },
        bindings: { kafka: { key: { type: 'string', description: 'The stream (the CloudEvent subject): one stream, one partition, in order' } } },
      };
      refs[type] = { $ref: `#/components/messages/${type}` };
    }
    channels[m.name] = { address: topicForContext(m.name, prefix), title: `The ${m.name} context's events`, messages: refs };
    operations[`receive.${m.name}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${m.name}` },
      messages: Object.keys(refs).map((t) => ({ $ref: `#/channels/${m.name}/messages/${t}` })),
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Cloud Provisioning API events',
      version: '1.0.0',
      description: 'The domain events the service publishes, one topic per bounded context, as CloudEvents 1.0 (structured mode). The same events are served by GET /v1/events and its streams.',
    },
    defaultContentType: CLOUDEVENTS_CONTENT_TYPE,
    servers: { kafka: { host: options.brokers?.[0] ?? 'kafka:9092', protocol: 'kafka', description: 'The deployment\'s Kafka brokers' } },
    channels,
    operations,
    components: { schemas: { CloudEvent: CLOUD_EVENT }, messages },
  };
}
