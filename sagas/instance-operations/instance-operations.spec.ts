import { instanceDecider, type InstanceState } from '../../libs/domain/compute/instance.decider';
import type { InstanceEvent } from '../../libs/domain/compute/instance.events';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import { instanceSpec } from '../../test/support/fixtures';
import { logRecorder } from '../../test/support/projector';
import { instanceOperations } from './instance-operations';

const at = '2026-01-01T00:00:00.000Z';
const spec = instanceSpec({ sshKeyId: 'key-1', tags: [{ key: 'env', value: 'prod' }] });
const requested = { ...spec, instanceId: 'i1', jobId: 'j1', requestedAt: at };
const provisioned = { instanceId: 'i1', jobId: 'j1', operation: 'create', externalId: 'sim-ext', hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at };

/** The instance's state folded from its events, as the job process loads it. */
const stateOf = (...events: Array<{ type: string; data: Record<string, unknown> }>) => events.reduce<InstanceState>((s, e) => instanceDecider.evolve(s, e as InstanceEvent), instanceDecider.initialState());
type Live = Parameters<typeof instanceOperations.target>[0];

describe('instance operations: the jobs instance events request, and their provider calls', () => {
  it('requests a create job whose payload names the spec\'s essentials, not the whole spec', () => {
    const log = logRecorder();
    const job = instanceOperations.jobOf(log.stream('instance-i1', {})('compute.InstanceRequested.v1', requested, { projectId: 'p1' }));
    expect(job).toEqual({
      jobId: 'j1',
      projectId: 'p1',
      type: 'instance.create',
      resourceType: 'instance',
      resourceId: 'i1',
      operation: 'create',
      payload: { name: 'web', plan: 'pc-t3-medium', operatingSystem: 'ubuntu_24_04_x64_lts', region: 'us-east-1', site: 'us-east-1', hostname: 'web.us-east-1', workerCount: 1, sshKeyId: 'key-1' },
      enqueuedAt: at,
    });
  });

  it('requests an action job of the recorded job type, in the project of the event, with a rescue image only when one was asked', () => {
    const log = logRecorder();
    const s = log.stream('instance-i1', { instanceId: 'i1' });
    const action = (data: Record<string, unknown>) => instanceOperations.jobOf(s('compute.InstanceActionRequested.v1', { jobType: 'instance.action', from: 'active', to: 'stopping', requestedAt: at, requestedBy: 'apikey:k', ...data }, { projectId: 'p1' }));
    expect(action({ jobId: 'j2', action: 'stop' })).toEqual({ jobId: 'j2', projectId: 'p1', type: 'instance.action', resourceType: 'instance', resourceId: 'i1', operation: 'stop', payload: { action: 'stop', from: 'active', requestedBy: 'apikey:k' }, enqueuedAt: at });
    expect(action({ jobId: 'j3', action: 'rescue', to: 'rescuing', rescueImage: 'rescue-os' })).toMatchObject({ operation: 'rescue', payload: { action: 'rescue', rescueImage: 'rescue-os' } });
    expect(action({ jobId: 'j4', action: 'terminate', jobType: 'instance.delete', to: 'terminating' })).toMatchObject({ type: 'instance.delete', operation: 'terminate' });
    // Lifecycle events request no job.
    expect(instanceOperations.jobOf(s('compute.InstanceProvisioned.v1', provisioned))).toBeNull();
  });

  it('targets the provider machine by its external id, or by the instance id before it has one, with the driver\'s spec', () => {
    const before = instanceOperations.target(stateOf({ type: 'compute.InstanceRequested.v1', data: requested }) as Live);
    expect(before).toEqual({
      providerKind: 'provider_publiccloud',
      externalId: 'i1',
      spec: { instanceId: 'i1', name: 'web', region: 'us-east-1', instanceType: 'pc-t3-medium', image: 'pc-ubuntu-24-04-x64-lts', diskSizeGb: null, workerCount: 1, spot: false, sshKeys: ['key-1'], accelerators: null, ports: [], tags: { env: 'prod' } },
    });
    const after = instanceOperations.target(stateOf({ type: 'compute.InstanceRequested.v1', data: requested }, { type: 'compute.InstanceProvisioned.v1', data: provisioned }) as Live);
    expect(after.externalId).toBe('sim-ext');
  });

  it('calls the provider: create and reimage describe the machine, actions change its live status', async () => {
    const driver = SimulatorDriver.instant('provider_publiccloud');
    const { spec: driverSpec } = instanceOperations.target(stateOf({ type: 'compute.InstanceRequested.v1', data: requested }) as Live);
    const created = await instanceOperations.calls.create(driver, { token: 'j1:r0:1', externalId: 'i1', spec: driverSpec });
    expect(created).toMatchObject({ externalId: driver.externalIdFor('i1'), sshUser: expect.any(String), sshPort: expect.any(Number) });
    const target = { token: 'j2:r0:1', externalId: driver.externalIdFor('i1'), spec: driverSpec };
    expect(await instanceOperations.calls.stop(driver, target)).toBeUndefined();
    expect(await driver.liveStatus(target.externalId)).toBe('stopped');
    expect(await instanceOperations.calls.rescue(driver, target)).toEqual(created);
    expect(await driver.liveStatus(target.externalId)).toBe('active');
    await instanceOperations.calls.terminate(driver, target);
    expect(await driver.liveStatus(target.externalId)).toBe('terminated');
    // The job document keeps only the external id and address of a result.
    expect(instanceOperations.jobResult(created as never)).toEqual({ externalId: driver.externalIdFor('i1'), ipv4: (created as { ipv4: string }).ipv4 });
  });
});
