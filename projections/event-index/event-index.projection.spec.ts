import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { eventIndexProjection, indexDoc } from './event-index.projection';

const recorded = (over: Partial<RecordedEvent> = {}): RecordedEvent => ({
  id: 'e1',
  type: 'providers.ProviderRegistered.v1',
  streamId: 'provider-p1',
  revision: 0,
  position: 7,
  data: { providerId: 'p1', projectId: 'proj:test', apiKey: 'sk-secret' },
  metadata: { schemaVersion: 1, projectId: 'proj:test', mode: 'test' },
  recordedAt: '2026-01-02T03:04:05.678+02:00',
  ...over,
});

describe('event index projection', () => {
  it('indexes an event under its data scope, context, type, subject and UTC time, with its CloudEvent (secrets stripped)', () => {
    const doc = indexDoc(recorded())!;
    expect(doc).toMatchObject({ id: 'e1', _position: 7, scope: 'proj:test', context: 'providers', eventType: 'providers.ProviderRegistered.v1', subject: 'provider-p1', time: '2026-01-02T01:04:05.678Z', position: 7 });
    expect(doc.event).toMatchObject({ id: 'e1', type: 'providers.ProviderRegistered.v1', livemode: false, data: { providerId: 'p1', projectId: 'proj' } });
    expect(JSON.stringify(doc)).not.toContain('sk-secret');
    // The test scope never leaves the service: a stream named after it is bared too.
    expect(JSON.stringify(indexDoc(recorded({ streamId: 'invoice-usage-proj:test', data: { nested: { scope: 'proj:test' } } }))!.event)).not.toContain('proj:test');
  });

  it('puts a bare-project event of test mode (an API key a test key made) in the test scope, a live one in the project', () => {
    expect(indexDoc(recorded({ metadata: { schemaVersion: 1, projectId: 'proj', mode: 'test' } }))!.scope).toBe('proj:test');
    expect(indexDoc(recorded({ metadata: { schemaVersion: 1, projectId: 'proj' } }))!.scope).toBe('proj');
  });

  it('leaves out events of no project, and takes the types it is built for', () => {
    const p = eventIndexProjection(['a.B.v1']);
    expect(p.eventTypes).toEqual(['a.B.v1']);
    expect(p.documentId(recorded({ metadata: { schemaVersion: 1 } }))).toBeNull();
    expect(p.documentId(recorded())).toBe('e1');
  });
});
