import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { InstanceSpecData } from '../../libs/domain/compute/instance.events';

/** A public-cloud instance spec as a create records it (unit tests of deciders and projections). */
export function instanceSpec(overrides: Partial<InstanceSpecData> = {}): InstanceSpecData {
  return {
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
    autoStopMinutes: null,
    accelerators: null,
    sshKeyId: null,
    tags: [],
    vcpus: 2,
    ramMb: 4096,
    diskGb: 80,
    gpus: 0,
    gpuType: null,
    hourlyPriceCents: 4,
    ...overrides,
  };
}

/** A bare-metal server spec as a create records it (projection and process-manager tests). */
export function serverSpec(overrides: Record<string, unknown> = {}) {
  return {
    projectId: 'p1',
    providerId: 'prov1',
    providerKind: 'provider_baremetal',
    name: 'db',
    hostname: 'db-1',
    label: 'db',
    role: 'BareMetal',
    site: 'LOS1',
    region: 'af-west-1',
    plan: { slug: 'small', name: 'Small' },
    operatingSystem: { slug: 'ubuntu_24_04', name: 'Ubuntu 24.04' },
    billing: 'hourly',
    sshKeys: [] as string[],
    userData: null as string | null,
    tags: [] as { key: string; value: string }[],
    workerCount: 1,
    spot: false,
    accelerators: null,
    hourlyPriceCents: 100,
    ...overrides,
  };
}

/** Events of one stream as the store records them, positions counting up from 1 (projection tests). */
export function streamRecorder(streamId: string, base: Record<string, unknown>): (type: string, data: Record<string, unknown>) => RecordedEvent {
  let position = 0;
  return (type, data) => {
    position++;
    return { id: `e${position}`, type, streamId, revision: position - 1, position, data: { ...base, ...data }, metadata: { schemaVersion: 1 }, recordedAt: '2026-01-01T00:00:00.000Z' };
  };
}
