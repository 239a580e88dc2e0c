import { foldDocument } from '../../libs/subscriptions/src/document-projection';
import { MemoryReadCollection } from '../../libs/readstore/src/memory-read-store';
import { streamRecorder } from '../../test/support/fixtures';
import { instanceEventsProjection } from './instance-events.projection';

describe('instance events projection', () => {
  const record = streamRecorder('instance-i1', { instanceId: 'i1' });

  it('records each event of the stream as an entry of the activity log', () => {
    const e = { ...record('compute.InstanceStopped.v1', { jobId: 'j1', at: 'x' }), metadata: { schemaVersion: 1, actor: 'system:auto-stop' } };
    expect(foldDocument(instanceEventsProjection, [e], e.id)).toEqual({
      id: e.id,
      _position: e.position,
      instanceId: 'i1',
      event: 'compute.InstanceStopped.v1',
      revision: e.revision,
      data: e.data,
      actor: 'system:auto-stop',
      createdAt: e.recordedAt,
    });
  });

  it('pages an instance log newest first from its index, with the total', async () => {
    const c = new MemoryReadCollection('instance_events_spec');
    await c.ensureIndexes(instanceEventsProjection.indexes ?? []);
    const record = streamRecorder('instance-i1', { instanceId: 'i1' });
    const other = streamRecorder('instance-i2', {});
    const events = [...Array.from({ length: 5 }, () => record('compute.InstanceUpdated.v1', { at: 'x' })), { ...other('compute.InstanceUpdated.v1', { at: 'x' }), id: 'other-e1' }];
    await c.write(events.map((e) => ({ kind: 'put' as const, doc: instanceEventsProjection.evolve(null, e)!, isNew: true })));
    const query = { filter: { instanceId: 'i1' }, sort: [{ field: 'revision', direction: -1 as const }], skip: 1, limit: 2 };
    expect(c.explain(query)).toMatchObject({ plan: 'index' });
    const page = await c.find(query);
    expect(page.total).toBe(5);
    expect(page.items.map((d) => d.revision)).toEqual([3, 2]);
  });
});
