import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider } from '../shared/job-resource';
import { jobResourceSteps } from './job-resource-steps';
import { overlappingNetwork, privateNetworks } from './private-network.resource';

const given = deciderSpec(jobResourceDecider(privateNetworks));
const fields = { name: 'backend', region: 'us-east-1', cidr: '10.1.0.0/16', targets: [], tags: [] };
const { create, requested, ask, asked, done, active } = jobResourceSteps(privateNetworks, fields);
const i1 = { targetType: 'instance', targetId: 'i1', targetRegion: 'us-east-1' };

describe('private network decider', () => {
  it('creates with a private range (RFC 1918 or RFC 4193)', () => {
    given([]).when(create()).then([requested]);
    given([]).when(create({ cidr: 'fd00:1::/64' })).then([{ ...requested, data: { ...requested.data, fields: { ...fields, cidr: 'fd00:1::/64' } } }]);
    given([]).when(create({ cidr: '172.32.0.0/16' })).thenThrows('BAD_REQUEST', /private/);
  });

  it('attaches targets of its region, each once', () => {
    given(active).when(ask('j2', 'attach', i1)).then([asked('j2', 'attach', 'active', i1)]);
    given(active).when(ask('j2', 'attach', { ...i1, targetRegion: 'eu-west-2' })).thenThrows('INVALID_REGION');
    given([...active, ...done('j2', 'attach', 'active', i1)]).when(ask('j3', 'attach', i1)).thenThrows('CONFLICT');
  });

  it('finds the network a new range would overlap', () => {
    const others = [{ id: 'a', cidr: '10.0.0.0/16' }, { id: 'b', cidr: '10.1.0.0/16' }];
    expect(overlappingNetwork('10.1.128.0/17', others)?.id).toBe('b');
    expect(overlappingNetwork('10.0.0.0/8', others)?.id).toBe('a');
    expect(overlappingNetwork('10.2.0.0/16', others)).toBeNull();
    expect(overlappingNetwork('fd00::/8', others)).toBeNull();
  });
});
