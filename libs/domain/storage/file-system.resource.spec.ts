import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { fileSystems } from './file-system.resource';

const given = deciderSpec(jobResourceDecider(fileSystems));
const at = '2026-01-01T00:00:00.000Z';
const fields = { name: 'shared', sizeGb: 100, region: 'us-east-1', tags: [] as Array<{ key: string; value: string }> };
type Command = JobResourceCommand<typeof fields>;

const create: Command = { type: 'CreateResource', id: 'f1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, now: at };
const requested = { type: 'storage.FileSystemRequested.v1', data: { id: 'f1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, requestedAt: at } };
const completed = { type: 'storage.FileSystemOperationCompleted.v1', data: { id: 'f1', jobId: 'j1', at, operation: 'create', result: { externalId: 'fs-1', attributes: { mountTarget: 'fs:/export' } } } };
const ask = (projectId = 'p1'): Command => ({ type: 'RequestOperation', id: 'f1', jobId: 'j2', projectId, operation: 'delete', args: {}, requestedBy: 'u', now: at });
const asked = { type: 'storage.FileSystemOperationRequested.v1', data: { id: 'f1', jobId: 'j2', operation: 'delete', args: {}, from: 'active', requestedBy: 'u', requestedAt: at } };

describe('file system decider (a declared job-backed resource)', () => {
  it('creates in `creating`; refuses sizes outside 1-65536 and an existing id', () => {
    given([]).when(create).then([requested]);
    given([]).when({ ...create, fields: { ...fields, sizeGb: 0 } }).thenThrows('BAD_REQUEST', /sizeGb/);
    given([]).when({ ...create, fields: { ...fields, sizeGb: 65537 } }).thenThrows('BAD_REQUEST', /sizeGb/);
    given([requested]).when(create).thenThrows('CONFLICT');
  });

  it('deletes once active, not while creating (409) nor for another project (404)', () => {
    given([requested, completed]).when(ask()).then([asked]);
    given([requested]).when(ask()).thenThrows('INVALID_STATE', /Cannot delete a file system in status creating/);
    given([requested, completed]).when(ask('p2')).thenThrows('NOT_FOUND');
  });
});
