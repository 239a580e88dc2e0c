import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, jobResourceEventTypes } from '../shared/job-resource';
import { firewalls } from './firewall.resource';
import { jobResourceSteps } from './job-resource-steps';

const decider = jobResourceDecider(firewalls);
const given = deciderSpec(decider);
const ssh = { direction: 'inbound', protocol: 'tcp', port: 22, source: '0.0.0.0/0' };
const ping = { direction: 'inbound', protocol: 'icmp', source: '10.0.0.0/8' };
const fields = { name: 'web', rules: [ssh], targets: [], tags: [] };
const { create, requested, ask, asked, done, active } = jobResourceSteps(firewalls, fields);
const i1 = { targetType: 'instance', targetId: 'i1', targetRegion: 'us-east-1' };

describe('firewall decider', () => {
  it('creates with at most 100 valid rules', () => {
    given([]).when(create()).then([requested]);
    given([]).when(create({ rules: [{ ...ssh, port: undefined }] })).thenThrows('BAD_REQUEST', /port is required/);
    given([]).when(create({ rules: Array.from({ length: 101 }, () => ping) })).thenThrows('BAD_REQUEST', /at most 100/);
  });

  it('updates its rules as a job: they change when the job completes', () => {
    given(active).when(ask('j2', 'update', { rules: [ping] })).then([asked('j2', 'update', 'active', { rules: [ping] })]);
    const history = [...active, asked('j2', 'update', 'active', { rules: [ping] })];
    const state = (events: typeof history) => events.reduce(decider.evolve, decider.initialState()) as { fields: { rules: unknown[] }; status: string };
    expect(state(history)).toMatchObject({ status: 'updating', fields: { rules: [ssh] } });
    const types = jobResourceEventTypes(firewalls);
    expect(state([...history, { type: types.completed, data: { id: 'r1', jobId: 'j2', at: 'now', operation: 'update', result: null } }])).toMatchObject({ status: 'active', fields: { rules: [ping] } });
  });

  it('applies the name and the rules of an update, either alone or both (DECISIONS 14)', () => {
    const types = jobResourceEventTypes(firewalls);
    const after = (args: Record<string, unknown>) =>
      [...active, asked('j2', 'update', 'active', args), { type: types.completed, data: { id: 'r1', jobId: 'j2', at: 'now', operation: 'update', result: null } }].reduce(decider.evolve, decider.initialState()) as { fields: object };
    expect(after({ name: 'edge', rules: [ping] }).fields).toMatchObject({ name: 'edge', rules: [ping] });
    expect(after({ name: 'edge' }).fields).toMatchObject({ name: 'edge', rules: [ssh] });
    expect(after({ rules: [ping] }).fields).toMatchObject({ name: 'web', rules: [ping] });
  });

  it('has no region: assigns any target of the project, each once; deletes wherever assigned', () => {
    given(active).when(ask('j2', 'assign', { ...i1, targetRegion: 'anywhere' })).then([asked('j2', 'assign', 'active', { ...i1, targetRegion: 'anywhere' })]);
    const assigned = [...active, ...done('j2', 'assign', 'active', i1)];
    given(assigned).when(ask('j3', 'assign', i1)).thenThrows('CONFLICT', /already assigned/);
    given(assigned).when(ask('j3', 'delete')).then([asked('j3', 'delete', 'active')]);
  });
});
