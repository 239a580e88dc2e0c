import type { z } from 'zod';
import { jobResourceDecider, type JobResourceCommand } from '../../libs/domain/shared/job-resource';
import { volumes } from '../../libs/domain/storage/volume.resource';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { logRecorder, projected } from '../../test/support/projector';
import { volumesHeldBy, volumesProjection } from './volumes.projection';

const decider = jobResourceDecider(volumes);
const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();

/** Volumes driven through their own decider, their events recorded into one log. */
function volumeLog() {
  const log = logRecorder();
  const states = new Map<string, ReturnType<typeof decider.initialState>>();
  return (id: string, command: Record<string, unknown>): RecordedEvent[] => {
    const record = log.stream(`volume-${id}`, {});
    let state = states.get(id) ?? decider.initialState();
    const decided = decider.decide({ id, projectId: 'p1', ...command } as JobResourceCommand<z.output<typeof volumes.schema>>, state);
    for (const e of decided) state = decider.evolve(state, e);
    states.set(id, state);
    return decided.map((e) => record(e.type, e.data));
  };
}

describe('volumes read model and the instance-terminate guard\'s lookup (volumesHeldBy)', () => {
  const create = (jobId: string) => ({ type: 'CreateResource', jobId, providerId: 'prov1', providerKind: 'provider_publiccloud', fields: { name: 'data', sizeGb: 100, region: 'us-east-1' }, now: at(0) });
  const attach = (jobId: string, instanceId: string) => ({ type: 'RequestOperation', jobId, operation: 'attach', args: { instanceId, instanceRegion: 'us-east-1' }, requestedBy: 'u', now: at(5) });

  it('follows a volume through create, attach and detach, the instance set by the completed attach only', async () => {
    const v = volumeLog();
    const model = await projected(volumesProjection);
    await model.handle(...v('v1', create('j1')));
    expect(await model.get('v1')).toMatchObject({ status: 'creating', jobId: 'j1', instanceId: null, name: 'data', sizeGb: 100, tags: [], createdAt: at(0) });
    await model.handle(...v('v1', { type: 'BeginOperation', jobId: 'j1', now: at(1) }), ...v('v1', { type: 'CompleteOperation', jobId: 'j1', now: at(2), result: { externalId: 'vol-x', attributes: { devicePath: null } } }));
    expect(await model.get('v1')).toMatchObject({ status: 'available', externalId: 'vol-x', provided: { devicePath: null } });

    await model.handle(...v('v1', attach('j2', 'i1')));
    expect(await model.get('v1')).toMatchObject({ status: 'attaching', instanceId: null, pendingArgs: { instanceId: 'i1' } });
    await model.handle(...v('v1', { type: 'CompleteOperation', jobId: 'j2', now: at(6), result: { externalId: 'vol-x', attributes: { devicePath: '/dev/vdb' } } }));
    // pendingArgs is compared whole: toMatchObject's `{}` would match any object.
    expect(await model.get('v1')).toMatchObject({ status: 'attached', instanceId: 'i1', provided: { devicePath: '/dev/vdb' }, updatedAt: at(6) });
    expect((await model.get('v1'))?.pendingArgs).toEqual({});

    await model.handle(...v('v1', { type: 'RequestOperation', jobId: 'j3', operation: 'detach', args: {}, requestedBy: 'u', now: at(7) }), ...v('v1', { type: 'CompleteOperation', jobId: 'j3', now: at(8) }));
    expect(await model.get('v1')).toMatchObject({ status: 'available', instanceId: null });
  });

  it('finds the volumes attached to an instance and those being attached to it, not a failed attach nor another instance\'s', async () => {
    const v = volumeLog();
    const model = await projected(volumesProjection);
    const ready = (id: string) => [...v(id, create(`c-${id}`)), ...v(id, { type: 'CompleteOperation', jobId: `c-${id}`, now: at(1) })];
    await model.handle(...ready('held'), ...ready('coming'), ...ready('failed'), ...ready('other'), ...ready('free'));
    await model.handle(...v('held', attach('a1', 'i1')), ...v('held', { type: 'CompleteOperation', jobId: 'a1', now: at(6) }));
    await model.handle(...v('coming', attach('a2', 'i1')));
    await model.handle(...v('failed', attach('a3', 'i1')), ...v('failed', { type: 'FailOperation', jobId: 'a3', error: 'no slot', now: at(6) }));
    await model.handle(...v('other', attach('a4', 'i2')));

    expect((await volumesHeldBy(model.collection, 'i1')).sort()).toEqual(['coming', 'held']);
    expect(await volumesHeldBy(model.collection, 'i2')).toEqual(['other']);
    expect(await volumesHeldBy(model.collection, 'i3')).toEqual([]);
    expect(await model.get('failed')).toMatchObject({ status: 'error', instanceId: null, errorMessage: 'no slot' });
  });

  it('lists a volume being deleted until its delete completes, then removes it; a replay brings it not back', async () => {
    const v = volumeLog();
    const model = await projected(volumesProjection);
    const events = [...v('v1', create('j1')), ...v('v1', { type: 'CompleteOperation', jobId: 'j1', now: at(1) }), ...v('v1', { type: 'RequestOperation', jobId: 'j2', operation: 'delete', args: {}, requestedBy: 'u', now: at(2) })];
    await model.handle(...events);
    expect(await model.get('v1')).toMatchObject({ status: 'deleting' });
    const done = v('v1', { type: 'CompleteOperation', jobId: 'j2', now: at(3) });
    await model.handle(...done);
    expect(await model.all()).toEqual([]);
    model.restart();
    await model.handle(...events.slice(1), ...done);
    expect(await model.all()).toEqual([]);
  });
});
