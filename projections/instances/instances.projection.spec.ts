import type { InstanceSpecData } from '../../libs/domain/compute/instance.events';
import { instancesProjection, type InstanceDoc } from './instances.projection';
import { instanceSpec, streamRecorder } from '../../test/support/fixtures';

const spec: InstanceSpecData = instanceSpec({ autoStopMinutes: 30 });

const recorded = streamRecorder('instance-i1', { instanceId: 'i1', jobId: 'j1' });

describe('instances projection: the auto-stop poll key', () => {
  it('is armed exactly while an auto-stop time is set, through the lifecycle', () => {
    const steps: Array<[string, Record<string, unknown>, boolean]> = [
      ['compute.InstanceRequested.v1', { ...spec, requestedAt: '2026-01-01T00:00:00.000Z' }, false],
      ['compute.InstanceProvisioningStarted.v1', { at: '2026-01-01T00:00:01.000Z' }, false],
      ['compute.InstanceProvisioned.v1', { operation: 'create', externalId: 'x1', hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at: '2026-01-01T00:00:02.000Z' }, true],
      ['compute.InstanceActionRequested.v1', { action: 'stop', jobType: 'instance.action', from: 'active', to: 'stopping', requestedBy: 'apikey:k', requestedAt: '2026-01-01T00:10:00.000Z' }, false],
      ['compute.InstanceStopped.v1', { at: '2026-01-01T00:10:01.000Z' }, false],
      ['compute.InstanceStarted.v1', { operation: 'start', at: '2026-01-01T00:20:00.000Z' }, true],
      ['compute.InstanceOperationFailed.v1', { operation: 'start', error: 'boom', at: '2026-01-01T00:30:00.000Z' }, false],
    ];
    let doc: InstanceDoc | null = null;
    for (const [type, data, armed] of steps) {
      doc = instancesProjection.evolve(doc, recorded(type, data));
      expect(doc).not.toBeNull();
      expect({ type, armed: doc!.autoStopArmed, hasTime: doc!.autoStopAt !== null }).toEqual({ type, armed, hasTime: armed });
    }
  });

  it('stays unarmed for an active instance without autoStopMinutes', () => {
    let doc = instancesProjection.evolve(null, recorded('compute.InstanceRequested.v1', { ...spec, autoStopMinutes: null, requestedAt: '2026-01-01T00:00:00.000Z' }));
    doc = instancesProjection.evolve(doc, recorded('compute.InstanceProvisioned.v1', { operation: 'create', externalId: 'x1', hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at: '2026-01-01T00:00:02.000Z' }));
    expect(doc).toMatchObject({ status: 'active', autoStopAt: null, autoStopArmed: false });
  });
});
