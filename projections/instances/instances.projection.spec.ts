import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { InstanceSpecData } from '../../libs/domain/compute/instance.events';
import { instancesProjection, type InstanceDoc } from './instances.projection';

const spec: InstanceSpecData = {
  projectId: 'p1',
  providerId: 'prov1',
  providerKind: 'provider_publiccloud',
  name: 'web',
  hostname: 'web.us-east-1',
  region: 'us-east-1',
  site: 'us-east-1',
  instanceType: 'pc-t3-medium',
  plan: { slug: 'pc-t3-medium', name: 't3.medium' },
  image: 'pc-ubuntu-24-04-x64-lts',
  operatingSystem: { slug: 'ubuntu_24_04_x64_lts', name: 'Ubuntu 24.04 LTS' },
  diskSizeGb: null,
  workerCount: 1,
  spot: false,
  ports: [],
  autoStopMinutes: 30,
  accelerators: null,
  sshKeyId: null,
  tags: [],
  vcpus: 2,
  ramMb: 4096,
  diskGb: 80,
  gpus: 0,
  gpuType: null,
  hourlyPriceCents: 4,
};

let position = 0;
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `e${++position}`,
  type,
  streamId: 'instance-i1',
  revision: position - 1,
  position,
  data: { instanceId: 'i1', jobId: 'j1', ...data },
  metadata: { schemaVersion: 1 },
  recordedAt: '2026-01-01T00:00:00.000Z',
});

describe('instances projection: the auto-stop poll key', () => {
  it('is armed exactly while an auto-stop time is set, through the lifecycle', () => {
    const steps: Array<[string, Record<string, unknown>, boolean]> = [
      ['compute.InstanceRequested.v1', { ...spec, requestedAt: '2026-01-01T00:00:00.000Z' }, false],
      ['compute.InstanceProvisioningStarted.v1', { at: '2026-01-01T00:00:01.000Z' }, false],
      ['compute.InstanceProvisioned.v1', { operation: 'create', externalId: 'x1', hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at: '2026-01-01T00:00:02.000Z' }, true],
      ['compute.InstanceActionRequested.v1', { action: 'stop', jobType: 'instance.action', from: 'active', to: 'stopping', requestedBy: 'apikey:k', requestedAt: '2026-01-01T00:10:00.000Z' }, false],
      ['compute.InstanceStopped.v1', { at: '2026-01-01T00:10:01.000Z' }, false],
      ['compute.InstanceStarted.v1', { at: '2026-01-01T00:20:00.000Z' }, true],
      ['compute.InstanceOperationFailed.v1', { error: 'boom', at: '2026-01-01T00:30:00.000Z' }, false],
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
