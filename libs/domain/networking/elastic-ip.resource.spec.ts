import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider } from '../shared/job-resource';
import { elasticIps } from './elastic-ip.resource';
import { jobResourceSteps } from './job-resource-steps';

const given = deciderSpec(jobResourceDecider(elasticIps));
const fields = { name: null, region: 'us-east-1', targetType: null, targetId: null, tags: [] };
const { create, requested, ask, asked, done, active } = jobResourceSteps(elasticIps, fields);
const toA = { targetType: 'instance', targetId: 'a', targetRegion: 'us-east-1' };
const toB = { targetType: 'server', targetId: 'b', targetRegion: 'us-east-1' };
const heldByA = [...active, ...done('j2', 'move', 'active', toA)];

describe('elastic IP decider', () => {
  it('creates in `creating`; a name is optional, a region is not', () => {
    given([]).when(create()).then([requested]);
    given([]).when(create({ region: '' })).thenThrows('BAD_REQUEST', /region/);
  });

  it('moves from active to a target in its region, and from one target to another', () => {
    given(active).when(ask('j2', 'move', toA)).then([asked('j2', 'move', 'active', toA)]);
    given(active).when(ask('j2', 'move', { ...toA, targetRegion: 'eu-west-2' })).thenThrows('INVALID_REGION', /eu-west-2/);
    given(heldByA).when(ask('j3', 'move', toB)).then([asked('j3', 'move', 'active', toB)]);
    given(heldByA).when(ask('j3', 'move', toA)).thenThrows('CONFLICT', /already assigned to instance a/);
    given([requested]).when(ask('j2', 'move', toA)).thenThrows('INVALID_STATE', /Cannot move an elastic IP in status creating/);
    given([...active, asked('j2', 'move', 'active', toA)]).when(ask('j3', 'move', toB)).thenThrows('INVALID_STATE', /moving/);
  });

  it('deletes wherever it is held; another project cannot touch it', () => {
    given(heldByA).when(ask('j3', 'delete')).then([asked('j3', 'delete', 'active')]);
    given(active).when(ask('j2', 'delete', {}, 'p2')).thenThrows('NOT_FOUND');
  });
});
