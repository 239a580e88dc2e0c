import { logRecorder, projected } from '../../test/support/projector';
import { batchesProjection } from './batches.projection';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

describe('batches read model: one item per resource, settled by the fan-out', () => {
  it('opens every item unsettled, and settles each by its dispatch (its job) or its rejection (code and error)', async () => {
    const log = logRecorder();
    const b = log.stream('batch-b1', { batchId: 'b1' });
    const model = await projected(batchesProjection);
    await model.handle(b('compute.BatchRequested.v1', { projectId: 'p1', action: 'stop', resourceType: 'instances', resourceIds: ['i1', 'i2', 'i3'], requestedAt: at(0) }));
    expect(await model.get('b1')).toEqual({
      id: 'b1',
      _position: 1,
      projectId: 'p1',
      action: 'stop',
      resourceType: 'instances',
      items: [
        { resourceId: 'i1', jobId: null, rejected: null },
        { resourceId: 'i2', jobId: null, rejected: null },
        { resourceId: 'i3', jobId: null, rejected: null },
      ],
      createdAt: at(0),
      updatedAt: at(0),
    });
    await model.handle(b('compute.BatchItemDispatched.v1', { resourceId: 'i2', jobId: 'j2', at: at(1) }), b('compute.BatchItemRejected.v1', { resourceId: 'i3', code: 'INVALID_STATE', error: 'Instance is stopped', at: at(2) }));
    expect(await model.get('b1')).toMatchObject({
      items: [
        { resourceId: 'i1', jobId: null, rejected: null },
        { resourceId: 'i2', jobId: 'j2', rejected: null },
        { resourceId: 'i3', jobId: null, rejected: { code: 'INVALID_STATE', error: 'Instance is stopped' } },
      ],
      updatedAt: at(2),
    });
  });

  it('ignores an item of a batch it never saw requested, and lists a project\'s batches newest first', async () => {
    const log = logRecorder();
    const model = await projected(batchesProjection);
    await model.handle(
      log.stream('batch-lost', { batchId: 'lost' })('compute.BatchItemDispatched.v1', { resourceId: 'i1', jobId: 'j', at: at(1) }),
      log.stream('batch-old', { batchId: 'old' })('compute.BatchRequested.v1', { projectId: 'p1', action: 'start', resourceType: 'servers', resourceIds: ['s1'], requestedAt: at(0) }),
      log.stream('batch-new', { batchId: 'new' })('compute.BatchRequested.v1', { projectId: 'p1', action: 'delete', resourceType: 'servers', resourceIds: ['s1'], requestedAt: at(5) }),
      log.stream('batch-other', { batchId: 'other' })('compute.BatchRequested.v1', { projectId: 'p2', action: 'delete', resourceType: 'servers', resourceIds: ['s9'], requestedAt: at(9) }),
    );
    expect(await model.get('lost')).toBeNull();
    const { items } = await model.collection.find({ filter: { projectId: 'p1' }, sort: [{ field: 'createdAt', direction: -1 }] });
    expect(items.map((d) => d.id)).toEqual(['new', 'old']);
  });

  it('settles nothing twice when the fan-out\'s events are handed again after a restart', async () => {
    const log = logRecorder();
    const b = log.stream('batch-b1', { batchId: 'b1' });
    const events = [b('compute.BatchRequested.v1', { projectId: 'p1', action: 'reboot', resourceType: 'instances', resourceIds: ['i1'], requestedAt: at(0) }), b('compute.BatchItemDispatched.v1', { resourceId: 'i1', jobId: 'j1', at: at(1) })];
    const model = await projected(batchesProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect(await model.get('b1')).toMatchObject({ _position: 2, items: [{ resourceId: 'i1', jobId: 'j1', rejected: null }] });
  });
});
