import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import {
  allTopics,
  contextOf,
  isInternal,
  serializeCloudEvent,
  stripSecrets,
  toCloudEvent,
  topicOf,
} from '../src/cloudevents';

function recorded(overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    id: '0192f3c4-1111-7aaa-8bbb-000000000001',
    type: 'compute.InstanceRequested.v1',
    streamId: 'instance-0192f3c4-2222-7ccc-8ddd-000000000002',
    revision: 4,
    position: 1234,
    data: { instanceId: 'i-1', flavor: 'gp.small', region: 'eu-1' },
    metadata: {
      projectId: 'prj_42',
      actor: 'user:7',
      correlationId: 'corr-1',
      causationId: 'cause-1',
      schemaVersion: 1,
    },
    recordedAt: '2026-01-02T03:04:05.678Z',
    ...overrides,
  };
}

describe('toCloudEvent', () => {
  it('maps the required CloudEvents 1.0 attributes', () => {
    const ce = toCloudEvent(recorded());
    expect(ce.specversion).toBe('1.0');
    expect(ce.id).toBe('0192f3c4-1111-7aaa-8bbb-000000000001');
    expect(ce.type).toBe('compute.InstanceRequested.v1');
    expect(ce.source).toBe('/v1/projects/prj_42');
    expect(ce.subject).toBe('instance-0192f3c4-2222-7ccc-8ddd-000000000002');
    expect(ce.time).toBe('2026-01-02T03:04:05.678Z');
    expect(ce.datacontenttype).toBe('application/json');
    expect(ce.data).toEqual({ instanceId: 'i-1', flavor: 'gp.small', region: 'eu-1' });
  });

  it('adds position, stream revision, correlation and causation as lower-case extensions', () => {
    const ce = toCloudEvent(recorded());
    expect(ce.position).toBe(1234);
    expect(typeof ce.position).toBe('number');
    expect(ce.streamrevision).toBe(4);
    expect(ce.correlationid).toBe('corr-1');
    expect(ce.causationid).toBe('cause-1');
    for (const name of Object.keys(ce)) expect(name).toMatch(/^[a-z0-9]+$/);
  });

  it("shows a test-mode scope as the bare project with livemode: false, in the source and the data, without changing the event", () => {
    const e = recorded({ data: { projectId: 'p-7:test', name: 'vm' }, metadata: { projectId: 'p-7:test', schemaVersion: 1 } });
    const ce = toCloudEvent(e);
    expect([ce.source, ce.livemode, ce.data]).toEqual(['/v1/projects/p-7', false, { projectId: 'p-7', name: 'vm' }]);
    expect(e.data.projectId).toBe('p-7:test');
    expect(toCloudEvent(recorded({ data: { projectId: 'p-7' }, metadata: { projectId: 'p-7', schemaVersion: 1 } })).livemode).toBe(true);
  });

  it('says livemode: false for a test-mode event, true for a live one and for one without a mode (DECISIONS 21)', () => {
    expect(toCloudEvent(recorded({ metadata: { schemaVersion: 1, mode: 'test' } })).livemode).toBe(false);
    expect(toCloudEvent(recorded({ metadata: { schemaVersion: 1, mode: 'live' } })).livemode).toBe(true);
    expect(toCloudEvent(recorded({ metadata: { schemaVersion: 1 } })).livemode).toBe(true);
  });

  it('omits absent extensions and falls back to /cloud-api without a project', () => {
    const ce = toCloudEvent(recorded({ metadata: { schemaVersion: 1 } }));
    expect(ce.source).toBe('/cloud-api');
    expect(ce).not.toHaveProperty('correlationid');
    expect(ce).not.toHaveProperty('causationid');
    expect(toCloudEvent(recorded({ metadata: { projectId: '', schemaVersion: 1 } })).source).toBe('/cloud-api');
  });

  it('does not copy other metadata (actor, request id, idempotency key)', () => {
    const text = serializeCloudEvent(
      recorded({ metadata: { actor: 'user:7', requestId: 'req-9', idempotencyKey: 'idem-3', schemaVersion: 1 } }),
    );
    expect(text).not.toContain('user:7');
    expect(text).not.toContain('req-9');
    expect(text).not.toContain('idem-3');
  });

  it('serializes to JSON that parses back to the same object', () => {
    const e = recorded();
    expect(JSON.parse(serializeCloudEvent(e))).toEqual(toCloudEvent(e));
  });

  it('does not mutate the recorded event', () => {
    const e = recorded({ data: { name: 'x', password: 'p' } });
    toCloudEvent(e);
    expect(e.data).toEqual({ name: 'x', password: 'p' });
  });
});

describe('secret stripping', () => {
  it('drops secret-named keys at any depth, inside arrays too, whatever their case', () => {
    const e = recorded({
      type: 'identity.ApiKeyCreated.v1',
      streamId: 'apikey-1',
      data: {
        name: 'ci key',
        apiKey: 'sk_live_AAA',
        keyHash: 'sha256:BBB',
        prefix: 'sk_live',
        owner: { id: 'u1', password: 'hunter2', profile: { token: 'tok_CCC', display: 'Ann' } },
        list: [{ secret: 'DDD', ok: 1 }, { Credentials: { user: 'a' }, ok: 2 }],
        KEY: 'EEE',
      },
    });
    const ce = toCloudEvent(e);
    expect(ce.data).toEqual({
      name: 'ci key',
      prefix: 'sk_live',
      owner: { id: 'u1', profile: { display: 'Ann' } },
      list: [{ ok: 1 }, { ok: 2 }],
    });
    const text = serializeCloudEvent(e);
    for (const leaked of ['sk_live_AAA', 'sha256:BBB', 'hunter2', 'tok_CCC', 'DDD', 'EEE']) expect(text).not.toContain(leaked);
  });

  it('keeps look-alike keys that are not secrets', () => {
    expect(stripSecrets({ keyId: 'k1', tokens: 3, secretName: 'db', passwordPolicy: 'strong' })).toEqual({
      keyId: 'k1',
      tokens: 3,
      secretName: 'db',
      passwordPolicy: 'strong',
    });
  });

  it('strips secret keys from metadata before reading extensions', () => {
    const ce = toCloudEvent(recorded({ metadata: { projectId: 'p1', token: 't', schemaVersion: 1 } }));
    expect(JSON.stringify(ce)).not.toContain('"t"');
  });
});

describe('internal events', () => {
  it('the Idempotency-Key records and the bootstrap guard are never published; domain events are', () => {
    expect(isInternal({ type: 'idempotency.KeyReserved.v1' })).toBe(true);
    expect(isInternal('idempotency.KeyAnswered.v1')).toBe(true);
    expect(isInternal('platform.Bootstrapped.v1')).toBe(true);
    expect(isInternal('outbox.EffectScheduled.v1')).toBe(true);
    for (const t of ['compute.InstanceRequested.v1', 'idempotent.Thing.v1', 'billing.IdempotencyKeyUsed.v1', 'Idempotency.KeyReserved.v1']) expect({ t, internal: isInternal(t) }).toEqual({ t, internal: false });
  });
});

describe('contexts and topics: the event type\'s prefix', () => {
  it.each([
    ['identity.ProjectCreated.v1', 'identity'],
    ['compute.InstanceRequested.v1', 'compute'],
    ['jobs.JobEnqueued.v1', 'jobs'],
    ['providers.ProviderRegistered.v1', 'providers'],
    ['billing.InvoicePaid.v1', 'billing'],
    ['networking.PrivateNetworkRangeReserved.v1', 'networking'],
    ['webhooks.InboundWebhookReceived.v1', 'webhooks'],
    ['nodot', 'nodot'],
  ])('%s → %s', (type, context) => {
    expect(contextOf({ type })).toBe(context);
    expect(contextOf(type)).toBe(context);
  });

  it('ignores the stream: a type names its own topic', () => {
    expect(topicOf({ type: 'jobs.JobEnqueued.v1' })).toBe('cloud.jobs.events.v1');
    expect(topicOf(recorded({ streamId: 'wallet-p-EUR' }))).toBe('cloud.compute.events.v1');
  });

  it('maps the context to cloud.<context>.events.v1, with a configurable prefix', () => {
    expect(topicOf(recorded())).toBe('cloud.compute.events.v1');
    expect(topicOf({ type: 'billing.InvoicePaid.v1' })).toBe('cloud.billing.events.v1');
    expect(topicOf('billing.InvoicePaid.v1', 't123')).toBe('t123.billing.events.v1');
  });

  it('lists the topics of the given contexts once each, sorted, internal ones left out', () => {
    expect(allTopics(['storage', 'billing', 'idempotency', 'platform', 'billing'], 'p')).toEqual(['p.billing.events.v1', 'p.storage.events.v1']);
    expect(allTopics([])).toEqual([]);
  });
});
