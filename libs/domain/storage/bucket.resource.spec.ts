import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { bucketId, buckets } from './bucket.resource';

const given = deciderSpec(jobResourceDecider(buckets));
const at = '2026-01-01T00:00:00.000Z';
const fields = { name: 'my-logs', region: 'us-east-1', tags: [] as Array<{ key: string; value: string }> };
type Command = JobResourceCommand<typeof fields>;
const id = bucketId('pv1', 'my-logs');

const create = (jobId = 'j1'): Extract<Command, { type: 'CreateResource' }> => ({ type: 'CreateResource', id, jobId, projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, now: at });
const requested = (jobId = 'j1') => ({ type: 'storage.BucketRequested.v1', data: { id, jobId, projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, requestedAt: at } });
const completed = (jobId: string, operation: string) => ({ type: 'storage.BucketOperationCompleted.v1', data: { id, jobId, at, operation, result: { externalId: 'b-1', attributes: {} } } });
const deleteAsked = { type: 'storage.BucketOperationRequested.v1', data: { id, jobId: 'j2', operation: 'delete', args: {}, from: 'active', requestedBy: 'u', requestedAt: at } };

describe('bucket decider (a declared job-backed resource with content-derived ids)', () => {
  it('derives the id from provider and name: one name per provider', () => {
    expect(bucketId('pv1', 'my-logs')).toBe(id);
    expect(bucketId('pv2', 'my-logs')).not.toBe(id);
    expect(bucketId('pv1', 'other')).not.toBe(id);
  });

  it('creates; refuses a name S3 refuses, and a taken name (409) while the bucket lives', () => {
    given([]).when(create()).then([requested()]);
    given([]).when({ ...create(), fields: { ...fields, name: 'My_Logs' } }).thenThrows('BAD_REQUEST', /name/);
    given([]).when({ ...create(), fields: { ...fields, name: '192.168.0.1' } }).thenThrows('BAD_REQUEST', /IP address/);
    given([requested()]).when(create('j3')).thenThrows('CONFLICT', /my-logs is already taken/);
    given([requested(), completed('j1', 'create')]).when(create('j3')).thenThrows('CONFLICT');
    given([requested(), completed('j1', 'create'), deleteAsked]).when(create('j3')).thenThrows('CONFLICT');
  });

  it("a deleted bucket's name may be created again", () => {
    given([requested(), completed('j1', 'create'), deleteAsked, completed('j2', 'delete')]).when(create('j3')).then([requested('j3')]);
  });
});
