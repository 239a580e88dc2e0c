import { CONTEXT_MODULES } from '../../../../contexts/registrations';
import { CLOUDEVENTS_CONTENT_TYPE, INTERNAL_CONTEXTS, isSecretKey, topicForContext } from '../../../../libs/messaging/src/cloudevents';
import type { ContextModule } from '../../../../libs/runtime/src/context-module';
import { z } from 'zod';
import { jobResourceEventTypes, type JobResourceEventData } from '../../../../libs/domain/shared/job-resource';
import GENERATED from './event-schemas.generated.json';

type Json = Record<string, unknown>;

/**
 * The JSON Schema of each event type's `data`, generated from the TypeScript event types
 * (`npm run asyncapi:schemas`, scripts/event-schemas.cjs; `scripts/test.sh` fails when it is stale).
 */
export const EVENT_DATA_SCHEMAS: Readonly<Record<string, Json>> = GENERATED.events as Record<string, Json>;
const DECLARED_RESOURCE_EVENTS = GENERATED.declaredResourceEvents as Record<keyof JobResourceEventData, Json & { properties: Json }>;

/**
 * The data schemas of the declared job-backed resources' events (libs/domain/shared/job-resource.ts):
 * the generated schema of each kind of event, its `fields` the resource's own schema (zod's output).
 */
export function declaredResourceSchemas(modules: readonly ContextModule[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const m of modules) {
    for (const r of m.jobResources ?? []) {
      if (!r.declared) continue;
      const { $schema: _, ...fields } = z.toJSONSchema(r.declared.schema, { io: 'output', unrepresentable: 'any' }) as Json;
      for (const [kind, type] of Object.entries(jobResourceEventTypes(r.declared)) as [keyof JobResourceEventData, string][]) {
        const data = DECLARED_RESOURCE_EVENTS[kind];
        out[type] = 'fields' in data.properties ? { ...data, properties: { ...data.properties, fields } } : data;
      }
    }
  }
  return out;
}

/**
 * `schema` as the topics carry it: the CloudEvent's data is stripped of every key named like a secret
 * (libs/messaging stripSecrets), so the schema names none of them, at any depth.
 */
export function withoutSecretKeys(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSecretKeys);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema as Json)) {
    if (k === 'properties' && v !== null && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Json).filter(([name]) => !isSecretKey(name)).map(([name, s]) => [name, withoutSecretKeys(s)]));
    } else if (k === 'required' && Array.isArray(v)) {
      out[k] = v.filter((name) => typeof name !== 'string' || !isSecretKey(name));
    } else {
      out[k] = withoutSecretKeys(v);
    }
  }
  return out;
}

/** The payload of a message of `type`: the CloudEvent of that type, its `data` the event's generated schema (none: any object). */
export function payloadSchema(type: string, schemas: Readonly<Record<string, Json>> = EVENT_DATA_SCHEMAS): Json | undefined {
  const data = schemas[type];
  if (!data) return undefined;
  return { allOf: [{ $ref: '#/components/schemas/CloudEvent' }, { type: 'object', properties: { type: { const: type }, data: withoutSecretKeys(data) } }] };
}

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
 * whose payload is the CloudEvent of that type with its data's generated schema, and whose headers are
 * those the Kafka relay sets. A type without a generated schema gets a message without a payload, which
 * the spec (asyncapi.spec.ts) refuses.
 */
export function asyncApiDocument(options: { topicPrefix?: string; brokers?: string[]; modules?: readonly ContextModule[]; /** The generated schemas of the typed events (default: event-schemas.generated.json). */ schemas?: Readonly<Record<string, Json>> } = {}): Json {
  const prefix = options.topicPrefix ?? 'cloud';
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  const modules = options.modules ?? CONTEXT_MODULES;
  const schemas = { ...declaredResourceSchemas(modules), ...(options.schemas ?? EVENT_DATA_SCHEMAS) };
  for (const m of modules) {
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
        payload: payloadSchema(type, schemas),
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
