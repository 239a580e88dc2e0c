import { instanceDecider, type InstanceCommand } from './instance.decider';
import type { InstanceEvent, InstanceSpecData } from './instance.events';
import { instanceSpec } from '../../../test/support/fixtures';

const at = '2026-01-01T00:00:00.000Z';
const spec: InstanceSpecData = instanceSpec();
const requested: InstanceEvent = { type: 'compute.InstanceRequested.v1', data: { ...spec, instanceId: 'i1', jobId: 'j1', requestedAt: at } };
const provisioned: InstanceEvent = {
  type: 'compute.InstanceProvisioned.v1',
  data: { instanceId: 'i1', jobId: 'j1', operation: 'create', externalId: 'x1', hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at },
};

const fold = (events: InstanceEvent[]) => events.reduce(instanceDecider.evolve, instanceDecider.initialState());
const decide = (history: InstanceEvent[], command: InstanceCommand) => instanceDecider.decide(command, fold(history));
const sync = (observed: 'active' | 'stopped' | 'error' | 'terminated' | 'unknown'): InstanceCommand => ({ type: 'SyncInstanceStatus', observed, now: at });

describe('instance decider: live-status sync', () => {
  it('records a settled instance whose provider reports another status', () => {
    expect(decide([requested, provisioned], sync('stopped'))).toEqual([{ type: 'compute.InstanceStatusSynced.v1', data: { instanceId: 'i1', from: 'active', to: 'stopped', at } }]);
    const synced = decide([requested, provisioned], sync('error'));
    expect(fold([requested, provisioned, ...synced]).status).toBe('error');
    // From a synced error (no job of ours failed), the provider's word brings it back.
    expect(decide([requested, provisioned, ...synced], sync('active'))).toHaveLength(1);
  });

  it('records nothing when the provider agrees, cannot tell, or a job is in flight or failed', () => {
    expect(decide([requested, provisioned], sync('active'))).toEqual([]);
    expect(decide([requested, provisioned], sync('unknown'))).toEqual([]);
    expect(decide([requested], sync('stopped'))).toEqual([]);
    const failed: InstanceEvent = { type: 'compute.InstanceOperationFailed.v1', data: { instanceId: 'i1', jobId: 'j1', operation: 'create', error: 'boom', at } };
    expect(decide([requested, failed], sync('active'))).toEqual([]);
  });
});

describe('instance decider: restart steps (DECISIONS 6)', () => {
  it('goes stopping at the request, starting when the attempt begins, active when done', () => {
    const history: InstanceEvent[] = [requested, provisioned];
    const asked = decide(history, { type: 'RequestInstanceAction', jobId: 'j2', action: 'restart', now: at, requestedBy: 'u' });
    expect(fold([...history, ...asked]).status).toBe('stopping');
    const begun = decide([...history, ...asked], { type: 'BeginInstanceOperation', jobId: 'j2', now: at });
    expect(begun.map((e) => e.type)).toEqual(['compute.InstanceRebooting.v1']);
    expect(fold([...history, ...asked, ...begun]).status).toBe('starting');
    // A second attempt's begin changes nothing; completion makes it active.
    expect(decide([...history, ...asked, ...begun], { type: 'BeginInstanceOperation', jobId: 'j2', now: at })).toEqual([]);
    const done = decide([...history, ...asked, ...begun], { type: 'CompleteInstanceOperation', jobId: 'j2', now: at });
    expect(done.map((e) => e.type)).toEqual(['compute.InstanceStarted.v1']);
    expect(fold([...history, ...asked, ...begun, ...done]).status).toBe('active');
  });
});
