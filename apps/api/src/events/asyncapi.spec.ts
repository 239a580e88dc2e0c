import { Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { CONTEXT_MODULES } from '../../../../contexts/registrations';
import type { DomainEvent } from '../../../../libs/domain/shared/domain-error';
import { apiKeyDecider } from '../../../../libs/domain/identity/api-key.decider';
import type { MemberInvited } from '../../../../libs/domain/identity/membership';
import { elasticIps } from '../../../../libs/domain/networking/elastic-ip.resource';
import { jobResourceDecider } from '../../../../libs/domain/shared/job-resource';
import type { SshKeyAdded } from '../../../../libs/domain/ssh-keys/events';
import type { TicketOpened } from '../../../../libs/domain/support/events';
import type { InstanceTemplateCreated } from '../../../../libs/domain/templates/events';
import { toCloudEvent, topicOf } from '../../../../libs/messaging/src/cloudevents';
import { asyncApiDocument, EVENT_DATA_SCHEMAS } from './asyncapi';

type Schema = Record<string, unknown>;
type Message = { payload?: { allOf: [{ $ref: string }, { properties: { type: { const: string }; data?: Schema } }] }; headers?: unknown };
type Doc = { channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>; components: { schemas: { CloudEvent: Schema }; messages: Record<string, Message> } };

/** The data schema a message's payload gives its CloudEvent (none when the message has no payload). */
const dataSchema = (m: Message | undefined): Schema | undefined => m?.payload?.allOf[1].properties.data;

/** The event types that reach a topic without a message (payload with a non-empty data schema, and headers) on that topic's channel in `doc`. */
function withoutSchema(doc: Doc, types: readonly string[]): string[] {
  return types.filter((t) => {
    const channel = Object.values(doc.channels).find((c) => c.address === topicOf(t));
    const message = doc.components.messages[t];
    const data = dataSchema(message);
    return !channel?.messages[t] || !message?.headers || !data || Object.keys((data.properties as Schema | undefined) ?? {}).length === 0;
  });
}

/** The Kafka message value of `event` as recorded on a stream: the CloudEvent the relay publishes. */
const published = (event: DomainEvent, position: number) =>
  toCloudEvent({ id: `e${position}`, type: event.type, streamId: 's-1', revision: 0, position, data: event.data as Record<string, unknown>, metadata: { schemaVersion: 1, projectId: 'p1', correlationId: 'c1' }, recordedAt: '2026-01-01T00:00:00.000Z' });

describe('GET /v1/asyncapi.json: the AsyncAPI document of the topics', () => {
  const doc = asyncApiDocument() as unknown as Doc;
  const types = CONTEXT_MODULES.flatMap((m) => m.eventTypes);

  it('is a valid AsyncAPI 3 document for @asyncapi/parser (no error diagnostics)', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(document?.channels().length).toBe(CONTEXT_MODULES.length);
  });

  it('names every event type that reaches a topic, with its payload schema and Kafka headers', () => {
    expect(types.length).toBeGreaterThan(100);
    expect(withoutSchema(doc, types)).toEqual([]);
    // Self-contained: a payload refers to nothing but the CloudEvent envelope.
    expect([...new Set(JSON.stringify(doc.components.messages).match(/"\$ref":"[^"]*"/g))]).toEqual(['"$ref":"#/components/schemas/CloudEvent"']);
  });

  it('the check fails for an event type added without a schema', () => {
    expect(withoutSchema(doc, [...types, 'compute.SomethingNew.v1'])).toEqual(['compute.SomethingNew.v1']);
    // …for a registered type whose generated schema is missing (a type added without `npm run asyncapi:schemas`)…
    const { ['support.TicketOpened.v1']: _dropped, ...rest } = EVENT_DATA_SCHEMAS;
    expect(withoutSchema(asyncApiDocument({ schemas: rest }) as unknown as Doc, types)).toEqual(['support.TicketOpened.v1']);
    // …and for a message whose payload went missing.
    const broken = asyncApiDocument() as unknown as Doc;
    delete broken.components.messages['compute.InstanceRequested.v1'].payload;
    expect(withoutSchema(broken, types)).toEqual(['compute.InstanceRequested.v1']);
  });

  describe('real events validate against their message payload', () => {
    const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
    const validate = (ce: ReturnType<typeof published>) => {
      const message = doc.components.messages[ce.type];
      const check = ajv.compile({ ...message.payload, components: { schemas: doc.components.schemas } });
      return check(ce) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    };
    const at = '2026-01-01T00:00:00.000Z';
    const eip = jobResourceDecider(elasticIps);
    const samples: DomainEvent[] = [
      // A declared job-backed resource's events: its data built by the shared decider, its fields by the resource's schema.
      ...eip.decide({ type: 'CreateResource', id: 'eip1', jobId: 'j1', projectId: 'p1', providerId: 'prov1', providerKind: 'provider_publiccloud', fields: { name: 'edge', region: 'us-east-1', targetType: null, targetId: null, tags: [] }, now: at }, eip.initialState()),
      ...apiKeyDecider.decide(
        { type: 'IssueApiKey', keyId: 'k1', projectId: 'p1', scope: 'project', name: 'ci', prefix: 'svc_test_ab12', keyHash: 'hmac-of-the-key', role: 'developer', expiresAt: null, now: at },
        apiKeyDecider.initialState(),
      ),
      {
        type: 'support.TicketOpened.v1',
        data: { ticketId: 't1', projectId: 'p1', number: 'TCK-000001', subject: 'Disk', message: 'Full', priority: 'high', category: null, author: { name: 'Ada', email: 'ada@example.com', isSupport: false }, openedAt: at },
      } satisfies TicketOpened,
      {
        type: 'identity.MemberInvited.v1',
        data: { memberId: 'm1', projectId: 'p1', scope: 'project', email: 'bo@example.com', role: 'viewer', tokenHash: 'hmac', invitedAt: at, expiresAt: at },
      } satisfies MemberInvited,
      {
        type: 'compute.SshKeyAdded.v1',
        data: { keyId: 'k1', projectId: 'p1', createdAt: at, providerId: 'prov1', name: 'laptop', publicKey: 'ssh-ed25519 AAAA', algorithm: 'ssh-ed25519', bits: 256, fingerprint: 'SHA256:x', fingerprintMd5: 'aa:bb' },
      } satisfies SshKeyAdded,
      {
        type: 'compute.InstanceTemplateCreated.v2',
        data: {
          templateId: 'tpl1', projectId: 'p1', createdAt: at, name: 'web', providerId: 'prov1', region: 'us-east-1', instanceType: 't3.medium', image: null, diskSizeGb: 20,
          sshKeyId: null, accelerators: null, workerCount: 1, spot: false, tags: [{ key: 'env', value: 'prod' }],
        },
      } satisfies InstanceTemplateCreated,
    ];

    it.each(samples.map((e, i) => [e.type, e, i + 1] as const))('%s', (_type, event, position) => {
      expect(validate(published(event, position))).toEqual([]);
    });

    it('a CloudEvent whose data does not match its type is refused (the schemas do check the data)', () => {
      const ce = published(samples.find((e) => e.type === 'support.TicketOpened.v1')!, 1);
      expect(validate({ ...ce, data: { ...ce.data, priority: 'whenever', openedAt: undefined } })).toEqual(
        expect.arrayContaining([expect.stringMatching(/^\/data\/priority /), expect.stringMatching(/^\/data must have required property 'openedAt'/)]),
      );
    });

    it('no payload names a secret key, though some events record one (stripped from the topics)', () => {
      const issued = doc.components.messages['identity.ApiKeyIssued.v1'];
      expect(Object.keys(EVENT_DATA_SCHEMAS['identity.ApiKeyIssued.v1'].properties as Schema)).toContain('keyHash');
      expect(Object.keys(dataSchema(issued)?.properties as Schema)).not.toContain('keyHash');
      expect(dataSchema(issued)?.required).not.toContain('keyHash');
    });
  });
});
