import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { networkDatabaseId, networkDatabases, privateIpProblem } from './network-database.resource';

const given = deciderSpec(jobResourceDecider(networkDatabases));
const at = '2026-01-01T00:00:00.000Z';
const fields = { networkId: 'n1', databaseId: 'd1', privateIp: '10.0.0.5', region: 'us-east-1', tags: [] as Array<{ key: string; value: string }> };
type Command = JobResourceCommand<typeof fields>;
const id = networkDatabaseId('n1', '10.0.0.5');

const create = (jobId = 'j1'): Extract<Command, { type: 'CreateResource' }> => ({ type: 'CreateResource', id, jobId, projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, now: at });
const requested = (jobId = 'j1') => ({ type: 'networking.NetworkDatabaseRequested.v1', data: { id, jobId, projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, requestedAt: at } });
const completed = { type: 'networking.NetworkDatabaseOperationCompleted.v1', data: { id, jobId: 'j1', at, operation: 'create', result: { externalId: 'a-1', attributes: {} } } };

describe('network database attachment decider (a declared job-backed resource with content-derived ids)', () => {
  it('derives the id from network and address: one attachment per address of a network', () => {
    expect(networkDatabaseId('n1', '10.0.0.5')).toBe(id);
    expect(networkDatabaseId('n1', '10.0.0.6')).not.toBe(id);
    expect(networkDatabaseId('n2', '10.0.0.5')).not.toBe(id);
  });

  it('attaches in `creating`; refuses an address that is not one, and an address taken (409)', () => {
    given([]).when(create()).then([requested()]);
    given([]).when({ ...create(), fields: { ...fields, privateIp: '10.0.0.300' } }).thenThrows('BAD_REQUEST', /privateIp/);
    given([requested()]).when(create('j2')).thenThrows('CONFLICT', /10.0.0.5 is already taken in private network n1/);
    given([requested(), completed]).when(create('j2')).thenThrows('CONFLICT');
  });

  it('takes only host addresses inside the network range', () => {
    expect(privateIpProblem('10.0.0.0/24', '10.0.0.5')).toBeNull();
    expect(privateIpProblem('10.0.0.0/24', '10.0.1.5')).toMatch(/outside/);
    expect(privateIpProblem('10.0.0.0/24', '10.0.0.0')).toMatch(/network address/);
    expect(privateIpProblem('10.0.0.0/24', 'fd00::5')).toMatch(/outside/);
    expect(privateIpProblem('fd00::/64', 'fd00::5')).toBeNull();
    expect(privateIpProblem('fd00::/64', '10.0.0.5')).toMatch(/outside/);
  });
});
