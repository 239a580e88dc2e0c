import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { volumes } from './volume.resource';

const given = deciderSpec(jobResourceDecider(volumes));
const at = '2026-01-01T00:00:00.000Z';
const fields = { name: 'data', sizeGb: 50, region: 'us-east-1', instanceId: null, tags: [] };
type Command = JobResourceCommand<typeof fields>;

const create: Command = { type: 'CreateResource', id: 'v1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, now: at };
const requested = { type: 'storage.VolumeRequested.v1', data: { id: 'v1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, requestedAt: at } };
const completed = (jobId: string, operation: string, result: unknown = null) => ({ type: 'storage.VolumeOperationCompleted.v1', data: { id: 'v1', jobId, at, operation, result } });
const failed = (jobId: string, operation: string) => ({ type: 'storage.VolumeOperationFailed.v1', data: { id: 'v1', jobId, at, operation, error: 'boom' } });
const retried = (jobId: string, operation: string, status: string) => ({ type: 'storage.VolumeOperationRetried.v1', data: { id: 'v1', jobId, at, operation, status } });
const ask = (jobId: string, operation: string, args: Record<string, unknown> = {}, projectId = 'p1'): Command => ({ type: 'RequestOperation', id: 'v1', jobId, projectId, operation, args, requestedBy: 'u', now: at });
const asked = (jobId: string, operation: string, from: string, args: Record<string, unknown> = {}) => ({ type: 'storage.VolumeOperationRequested.v1', data: { id: 'v1', jobId, operation, args, from, requestedBy: 'u', requestedAt: at } });
const available = [requested, completed('j1', 'create', { externalId: 'ext-1', attributes: { devicePath: '/dev/vdb' } })];
const inRegion = { instanceId: 'i1', instanceRegion: 'us-east-1' };

describe('volume decider (a declared job-backed resource)', () => {
  it('creates in `creating` with its job; refuses fields outside the schema and an existing id', () => {
    given([]).when(create).then([requested]);
    given([]).when({ ...create, fields: { ...fields, sizeGb: 0 } } as Command).thenThrows('BAD_REQUEST', /sizeGb/);
    given([requested]).when(create).thenThrows('CONFLICT');
  });

  it('attaches only from available, within its region, and records the request args', () => {
    given(available).when(ask('j2', 'attach', inRegion)).then([asked('j2', 'attach', 'available', inRegion)]);
    given(available).when(ask('j2', 'attach', { instanceId: 'i1', instanceRegion: 'eu-west-2' })).thenThrows('INVALID_REGION', /eu-west-2/);
    given([requested]).when(ask('j2', 'attach', inRegion)).thenThrows('INVALID_STATE', /Cannot attach a volume in status creating/);
    given([...available, asked('j2', 'attach', 'available', inRegion)]).when(ask('j3', 'attach', inRegion)).thenThrows('INVALID_STATE', /attaching/);
  });

  it('detaches only when attached; deletes from available or error; unknown operations and other projects refused', () => {
    given(available).when(ask('j2', 'detach')).thenThrows('INVALID_STATE');
    given([...available, asked('j2', 'attach', 'available', inRegion), completed('j2', 'attach')]).when(ask('j3', 'detach')).then([asked('j3', 'detach', 'attached')]);
    given(available).when(ask('j2', 'delete')).then([asked('j2', 'delete', 'available')]);
    given([requested, failed('j1', 'create')]).when(ask('j2', 'delete')).then([asked('j2', 'delete', 'error')]);
    given(available).when(ask('j2', 'resize')).thenThrows('BAD_REQUEST');
    given(available).when(ask('j2', 'delete', {}, 'p2')).thenThrows('NOT_FOUND');
    given([]).when(ask('j2', 'delete')).thenThrows('NOT_FOUND');
  });

  it("the job process's steps act only for the job the volume waits for, and a retry resets from error", () => {
    given(available).when({ type: 'CompleteOperation', jobId: 'j1', now: at } as Command).thenNothingHappens();
    given([requested]).when({ type: 'FailOperation', jobId: 'j1', error: 'boom', now: at } as Command).then([failed('j1', 'create')]);
    given([requested]).when({ type: 'FailOperation', jobId: 'other', error: 'boom', now: at } as Command).thenNothingHappens();
    given([requested, failed('j1', 'create')]).when({ type: 'RetryOperation', jobId: 'j1', now: at } as Command).then([retried('j1', 'create', 'creating')]);
    given([requested]).when({ type: 'RetryOperation', jobId: 'j1', now: at } as Command).thenNothingHappens();
  });
});
