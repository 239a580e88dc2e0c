import { parse } from 'yaml';
import { deciderSpec } from '../shared/decider-spec';
import { DomainError } from '../shared/domain-error';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { clusterKubeconfig, clusters } from './cluster.resource';

const given = deciderSpec(jobResourceDecider(clusters));
const at = '2026-01-01T00:00:00.000Z';
const fields = { name: 'prod', region: 'us-east-1', version: '1.31.1', nodePools: [{ name: 'default', plan: 'pc-t3-medium', count: 3 }], tags: [], credentialRef: 'cred_x' };
type Command = JobResourceCommand<typeof fields>;

const create: Command = { type: 'CreateResource', id: 'c1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, now: at };
const requested = { type: 'kubernetes.ClusterRequested.v1', data: { id: 'c1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, requestedAt: at } };
const provided = { endpoint: 'https://k.example:6443', caData: 'Q0E=' };
const completed = (jobId: string, operation: string, result: unknown = null) => ({ type: 'kubernetes.ClusterOperationCompleted.v1', data: { id: 'c1', jobId, at, operation, result } });
const failed = (jobId: string, operation: string) => ({ type: 'kubernetes.ClusterOperationFailed.v1', data: { id: 'c1', jobId, at, operation, error: 'boom' } });
const ask = (jobId: string, operation: string, projectId = 'p1'): Command => ({ type: 'RequestOperation', id: 'c1', jobId, projectId, operation, args: {}, requestedBy: 'u', now: at });
const asked = (jobId: string, from: string) => ({ type: 'kubernetes.ClusterOperationRequested.v1', data: { id: 'c1', jobId, operation: 'delete', args: {}, from, requestedBy: 'u', requestedAt: at } });
const active = [requested, completed('j1', 'create', { externalId: 'k-1', attributes: provided })];

describe('cluster decider (a declared job-backed resource)', () => {
  it('creates in `creating`; refuses node pools, counts and versions outside the schema, and an existing id', () => {
    given([]).when(create).then([requested]);
    given([]).when({ ...create, fields: { ...fields, nodePools: [] } } as Command).thenThrows('BAD_REQUEST', /nodePools/);
    given([]).when({ ...create, fields: { ...fields, nodePools: [{ plan: 'pc-t3-medium', count: 101 }] } } as Command).thenThrows('BAD_REQUEST', /count/);
    given([]).when({ ...create, fields: { ...fields, nodePools: Array.from({ length: 11 }, () => ({ plan: 'p', count: 1 })) } } as Command).thenThrows('BAD_REQUEST', /1 to 10/);
    given([]).when({ ...create, fields: { ...fields, version: '' } } as Command).thenThrows('BAD_REQUEST', /version/);
    given([requested]).when(create).thenThrows('CONFLICT');
  });

  it('deletes from active or error, never while creating or already deleting; other projects see nothing', () => {
    given(active).when(ask('j2', 'delete')).then([asked('j2', 'active')]);
    given([requested, failed('j1', 'create')]).when(ask('j2', 'delete')).then([asked('j2', 'error')]);
    given([requested]).when(ask('j2', 'delete')).thenThrows('INVALID_STATE', /creating/);
    given([...active, asked('j2', 'active')]).when(ask('j3', 'delete')).thenThrows('INVALID_STATE', /deleting/);
    given(active).when(ask('j2', 'delete', 'p2')).thenThrows('NOT_FOUND');
    given(active).when(ask('j2', 'upgrade')).thenThrows('BAD_REQUEST');
    // The AI models it serves go first (the handler counts them).
    given(active).when({ ...ask('j2', 'delete'), args: { models: 2 } } as Command).thenThrows('INVALID_STATE', /2 AI model/);
    given(active).when({ ...ask('j2', 'delete'), args: { models: 0 } } as Command).then([{ ...asked('j2', 'active'), data: { ...asked('j2', 'active').data, args: { models: 0 } } }]);
  });

  it('gives a kubeconfig only once active, whose cluster, user and context refer to each other', () => {
    const refused = (status: string) => {
      try {
        clusterKubeconfig({ name: 'prod', status, provided: {} }, 'tok');
      } catch (err) {
        return err instanceof DomainError ? err.code : String(err);
      }
      return 'answered';
    };
    expect(refused('creating')).toBe('INVALID_STATE');
    expect(refused('error')).toBe('INVALID_STATE');
    const config = parse(clusterKubeconfig({ name: 'prod', status: 'active', provided }, 's3cret'));
    expect(config).toMatchObject({ apiVersion: 'v1', kind: 'Config' });
    const [context] = config.contexts;
    expect(config['current-context']).toBe(context.name);
    expect(config.clusters[0]).toEqual({ name: context.context.cluster, cluster: { server: provided.endpoint, 'certificate-authority-data': provided.caData } });
    expect(config.users[0]).toEqual({ name: context.context.user, user: { token: 's3cret' } });
  });
});
