import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { modelActionSchema, modelClusterRefusal, models } from './model.resource';

const decider = jobResourceDecider(models);
const given = deciderSpec(decider);
const at = '2026-01-01T00:00:00.000Z';
const fields = { clusterId: 'k1', name: 'llama', framework: 'framework_2' as const, modelId: 'meta/llama', replicas: 1, gpuType: null, port: null, tags: [] };
type Command = JobResourceCommand<typeof fields>;

const create: Command = { type: 'CreateResource', id: 'm1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_multicloud', fields, now: at };
const requested = { type: 'ai.ModelRequested.v1', data: { id: 'm1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_multicloud', fields, requestedAt: at } };
const completed = (jobId: string, operation: string, result: unknown = null) => ({ type: 'ai.ModelOperationCompleted.v1', data: { id: 'm1', jobId, at, operation, result } });
const failed = (jobId: string, operation: string) => ({ type: 'ai.ModelOperationFailed.v1', data: { id: 'm1', jobId, at, operation, error: 'boom' } });
const ask = (jobId: string, operation: string, args: Record<string, unknown> = {}): Command => ({ type: 'RequestOperation', id: 'm1', jobId, projectId: 'p1', operation, args, requestedBy: 'u', now: at });
const asked = (jobId: string, operation: string, from: string, args: Record<string, unknown> = {}) => ({ type: 'ai.ModelOperationRequested.v1', data: { id: 'm1', jobId, operation, args, from, requestedBy: 'u', requestedAt: at } });
const active = [requested, completed('j1', 'create', { externalId: 'svc-1', attributes: { endpointUrl: 'https://m.example', multicloudServiceName: 'svc-1' } })];
const fold = (events: Array<{ type: string; data: Record<string, unknown> }>) => events.reduce(decider.evolve, decider.initialState());

describe('AI model decider (a declared job-backed resource whose failure status is `failed`)', () => {
  it('deploys in `deploying`; refuses frameworks, replicas and names outside the schema', () => {
    given([]).when(create).then([requested]);
    expect(fold([requested]).status).toBe('deploying');
    given([]).when({ ...create, fields: { ...fields, framework: 'pytorch' } } as unknown as Command).thenThrows('BAD_REQUEST', /framework/);
    given([]).when({ ...create, fields: { ...fields, replicas: 0 } } as Command).thenThrows('BAD_REQUEST', /replicas/);
    given([]).when({ ...create, fields: { ...fields, name: 'x'.repeat(101) } } as Command).thenThrows('BAD_REQUEST', /name/);
  });

  it('ends a failed operation in `failed`, from which a manual retry redeploys and a delete is allowed', () => {
    const down = [requested, failed('j1', 'create')];
    expect(fold(down).status).toBe('failed');
    given(down).when({ type: 'RetryOperation', jobId: 'j1', now: at }).then([{ type: 'ai.ModelOperationRetried.v1', data: { id: 'm1', jobId: 'j1', at, operation: 'create', status: 'deploying' } }]);
    given(down).when({ type: 'FailOperation', jobId: 'j1', error: 'again', now: at }).thenNothingHappens();
    given(down).when(ask('j2', 'delete')).then([asked('j2', 'delete', 'failed')]);
    given(down).when(ask('j2', 'stop')).thenThrows('INVALID_STATE', /failed/);
  });

  it('stops from active, starts from stopped, scales an active model to the requested replicas', () => {
    given(active).when(ask('j2', 'stop')).then([asked('j2', 'stop', 'active')]);
    given(active).when(ask('j2', 'start')).thenThrows('INVALID_STATE', /active/);
    const stopped = [...active, asked('j2', 'stop', 'active'), completed('j2', 'stop')];
    expect(fold(stopped).status).toBe('stopped');
    given(stopped).when(ask('j3', 'scale', { replicas: 2 })).thenThrows('INVALID_STATE', /stopped/);
    given(active).when(ask('j2', 'scale', { replicas: 0 })).thenThrows('BAD_REQUEST', /replicas/);
    const scaled = [...active, asked('j2', 'scale', 'active', { replicas: 3 }), completed('j2', 'scale')];
    const state = fold(scaled) as { status: string; fields: { replicas: number } };
    expect([state.status, state.fields.replicas]).toEqual(['active', 3]);
  });

  it('deploys only to an active cluster of the project', () => {
    expect(modelClusterRefusal('k1', null, 'p1')?.code).toBe('NOT_FOUND');
    expect(modelClusterRefusal('k1', { projectId: 'p2', status: 'active' }, 'p1')?.code).toBe('NOT_FOUND');
    expect(modelClusterRefusal('k1', { projectId: 'p1', status: 'creating' }, 'p1')?.code).toBe('INVALID_STATE');
    expect(modelClusterRefusal('k1', { projectId: 'p1', status: 'active' }, 'p1')).toBeNull();
  });

  it('needs replicas to scale, and only there', () => {
    expect(modelActionSchema.safeParse({ action: 'scale', replicas: 2 }).success).toBe(true);
    expect(modelActionSchema.safeParse({ action: 'scale' }).success).toBe(false);
    expect(modelActionSchema.safeParse({ action: 'stop', replicas: 2 }).success).toBe(false);
    expect(modelActionSchema.safeParse({ action: 'start' }).success).toBe(true);
  });
});
