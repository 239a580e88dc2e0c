import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider } from '../shared/job-resource';
import { interconnections } from './interconnection.resource';
import { jobResourceSteps } from './job-resource-steps';

const given = deciderSpec(jobResourceDecider(interconnections));
const fields = { name: 'link', sourceRegion: 'us-east-1', targetRegion: 'eu-west-2', bandwidth: '1Gbps', regions: ['us-east-1', 'eu-west-2'], tags: [] };
const { create, requested, ask, asked, active, completed } = jobResourceSteps(interconnections, fields);

describe('interconnection decider', () => {
  it('joins two different regions, with an optional bandwidth such as 1Gbps', () => {
    given([]).when(create()).then([requested]);
    given([]).when(create({ targetRegion: 'us-east-1' })).thenThrows('BAD_REQUEST', /two different regions/);
    given([]).when(create({ bandwidth: '1 gigabit' })).thenThrows('BAD_REQUEST', /bandwidth/);
  });

  it('has no operation but delete; a failed create can be deleted', () => {
    given(active).when(ask('j2', 'move')).thenThrows('BAD_REQUEST', /Unknown operation/);
    given(active).when(ask('j2', 'delete')).then([asked('j2', 'delete', 'active')]);
    const failed = { type: 'networking.InterconnectionOperationFailed.v1', data: { id: 'r1', jobId: 'j1', at: 'now', operation: 'create', error: 'boom' } };
    given([requested, failed]).when(ask('j2', 'delete')).then([asked('j2', 'delete', 'error')]);
    given([requested, completed('j1', 'create')]).when({ type: 'RetryOperation', jobId: 'j1', now: 'now' }).thenNothingHappens();
  });
});
