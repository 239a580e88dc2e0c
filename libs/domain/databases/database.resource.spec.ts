import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { databases } from './database.resource';

const given = deciderSpec(jobResourceDecider(databases));
const at = '2026-01-01T00:00:00.000Z';
const fields = { name: 'orders', engine: 'postgres' as const, version: '16', plan: 'pc-t3-medium', region: 'us-east-1', tags: [] as Array<{ key: string; value: string }>, username: 'admin' as string | null, credentialRef: 'cred_x' as string | null };
type Command = JobResourceCommand<typeof fields>;

const create: Command = { type: 'CreateResource', id: 'd1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, now: at };
const requested = { type: 'databases.DatabaseRequested.v1', data: { id: 'd1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, requestedAt: at } };
const completed = (jobId: string, operation: string, result: unknown = null) => ({ type: 'databases.DatabaseOperationCompleted.v1', data: { id: 'd1', jobId, at, operation, result } });
const failed = (jobId: string) => ({ type: 'databases.DatabaseOperationFailed.v1', data: { id: 'd1', jobId, at, operation: 'create', error: 'boom' } });
const retried = (jobId: string) => ({ type: 'databases.DatabaseOperationRetried.v1', data: { id: 'd1', jobId, at, operation: 'create', status: 'creating' } });
const ask = (jobId: string, projectId = 'p1'): Command => ({ type: 'RequestOperation', id: 'd1', jobId, projectId, operation: 'delete', args: {}, requestedBy: 'u', now: at });
const asked = (jobId: string, from: string) => ({ type: 'databases.DatabaseOperationRequested.v1', data: { id: 'd1', jobId, operation: 'delete', args: {}, from, requestedBy: 'u', requestedAt: at } });
const active = [requested, completed('j1', 'create', { externalId: 'db-1', attributes: { host: 'h', port: 5432 } })];

describe('managed database decider (a declared job-backed resource)', () => {
  it('creates in `creating`; refuses an unknown engine, names outside 1-64 and an existing id', () => {
    given([]).when(create).then([requested]);
    given([]).when({ ...create, fields: { ...fields, engine: 'oracle' } } as unknown as Command).thenThrows('BAD_REQUEST', /engine/);
    given([]).when({ ...create, fields: { ...fields, name: 'x'.repeat(65) } } as Command).thenThrows('BAD_REQUEST', /name/);
    given([requested]).when(create).thenThrows('CONFLICT');
  });

  it('deletes from active or error only; another project sees nothing', () => {
    given(active).when(ask('j2')).then([asked('j2', 'active')]);
    given([requested, failed('j1')]).when(ask('j2')).then([asked('j2', 'error')]);
    given([requested]).when(ask('j2')).thenThrows('INVALID_STATE', /Cannot delete a database in status creating/);
    given(active).when(ask('j2', 'p2')).thenThrows('NOT_FOUND');
  });

  it('a manual retry of the failed create puts it back to creating, once', () => {
    given([requested, failed('j1')]).when({ type: 'RetryOperation', jobId: 'j1', now: at } as Command).then([retried('j1')]);
    given([requested, failed('j1'), retried('j1')]).when({ type: 'RetryOperation', jobId: 'j1', now: at } as Command).thenNothingHappens();
  });
});
