import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider } from '../shared/job-resource';
import { jobResourceSteps } from './job-resource-steps';
import { vlans } from './vlan.resource';

const given = deciderSpec(jobResourceDecider(vlans));
const fields = { name: 'lan', region: 'NYC', cidr: '10.8.0.0/24', targets: [], tags: [] };
const { create, requested, ask, asked, done, active } = jobResourceSteps(vlans, fields);
const s1 = { targetType: 'server', targetId: 's1', targetRegion: 'NYC' };
const withS1 = [...active, ...done('j2', 'assign', 'active', s1)];

describe('VLAN decider', () => {
  it('creates with a private CIDR whose host bits are zero', () => {
    given([]).when(create()).then([requested]);
    given([]).when(create({ cidr: '8.8.8.0/24' })).thenThrows('BAD_REQUEST', /cidr.*private/);
    given([]).when(create({ cidr: '10.8.0.1/24' })).thenThrows('BAD_REQUEST', /host bits/);
  });

  it('assigns targets of its region, each once, and detaches only those it has', () => {
    given(active).when(ask('j2', 'assign', s1)).then([asked('j2', 'assign', 'active', s1)]);
    given(active).when(ask('j2', 'assign', { ...s1, targetRegion: 'AMS' })).thenThrows('INVALID_REGION', /AMS/);
    given(withS1).when(ask('j3', 'assign', s1)).thenThrows('CONFLICT', /already assigned/);
    given(withS1).when(ask('j3', 'assign', { ...s1, targetId: 's2' })).then([asked('j3', 'assign', 'active', { ...s1, targetId: 's2' })]);
    given(active).when(ask('j2', 'detach', s1)).thenThrows('INVALID_STATE', /not assigned/);
    given(withS1).when(ask('j3', 'detach', s1)).then([asked('j3', 'detach', 'active', s1)]);
    given([...active, asked('j2', 'assign', 'active', s1)]).when(ask('j3', 'detach', s1)).thenThrows('INVALID_STATE', /attaching/);
  });

  it('is deleted only once nothing is assigned', () => {
    given(withS1).when(ask('j3', 'delete')).thenThrows('INVALID_STATE', /detach them first/);
    given([...withS1, ...done('j3', 'detach', 'active', s1)]).when(ask('j4', 'delete')).then([asked('j4', 'delete', 'active')]);
  });
});
