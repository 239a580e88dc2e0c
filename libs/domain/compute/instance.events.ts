import type { DomainEvent } from '../shared/domain-error';

export type InstanceStatus = 'creating' | 'active' | 'stopping' | 'stopped' | 'error' | 'terminated' | 'terminating' | 'starting' | 'provisioning';
export type InstanceAction = 'start' | 'stop' | 'restart' | 'terminate' | 'reinstall' | 'rescue';
/** What a job does to an instance: its create, an action, or its deletion. */
export type InstanceOperation = 'create' | InstanceAction;

export type InstanceSpecData = {
  projectId: string;
  providerId: string;
  providerKind: string;
  name: string;
  hostname: string;
  region: string;
  site: string;
  instanceType: string;
  plan: { slug: string; name: string };
  image: string | null;
  operatingSystem: { slug: string; name: string } | null;
  diskSizeGb: number | null;
  workerCount: number;
  spot: boolean;
  ports: number[];
  autoStopMinutes: number | null;
  accelerators: string | null;
  sshKeyId: string | null;
  /** SHA256 fingerprint of that key (absent in events recorded before it was kept). */
  sshKeyFingerprint?: string | null;
  tags: Array<{ key: string; value: string }>;
  vcpus: number;
  ramMb: number;
  diskGb: number;
  gpus: number;
  gpuType: string | null;
  hourlyPriceCents: number | null;
};

export type InstanceRequested = DomainEvent<'compute.InstanceRequested.v1', InstanceSpecData & { instanceId: string; jobId: string; requestedAt: string }>;
export type InstanceActionRequested = DomainEvent<
  'compute.InstanceActionRequested.v1',
  { instanceId: string; jobId: string; jobType: 'instance.action' | 'instance.delete'; action: InstanceAction; from: InstanceStatus; to: InstanceStatus; requestedAt: string; requestedBy: string; rescueImage?: string }
>;
export type InstanceProvisioningStarted = DomainEvent<'compute.InstanceProvisioningStarted.v1', { instanceId: string; jobId: string; at: string }>;
export type InstanceProvisioned = DomainEvent<
  'compute.InstanceProvisioned.v1',
  { instanceId: string; jobId: string; operation: 'create' | 'reinstall' | 'rescue'; externalId: string; hostname: string; ipv4: string; ipv6: string | null; sshUser: string; sshPort: number; at: string }
>;
export type InstanceStopped = DomainEvent<'compute.InstanceStopped.v1', { instanceId: string; jobId: string; at: string }>;
export type InstanceRebooting = DomainEvent<'compute.InstanceRebooting.v1', { instanceId: string; jobId: string; at: string }>;
export type InstanceStarted = DomainEvent<'compute.InstanceStarted.v1', { instanceId: string; jobId: string; operation: 'start' | 'restart'; at: string }>;
export type InstanceTerminated = DomainEvent<'compute.InstanceTerminated.v1', { instanceId: string; jobId: string; at: string }>;
export type InstanceOperationFailed = DomainEvent<'compute.InstanceOperationFailed.v1', { instanceId: string; jobId: string; operation: InstanceOperation; error: string; at: string }>;
export type InstanceOperationRetried = DomainEvent<'compute.InstanceOperationRetried.v1', { instanceId: string; jobId: string; operation: InstanceOperation; status: InstanceStatus; at: string }>;
export type InstanceUpdated = DomainEvent<'compute.InstanceUpdated.v1', { instanceId: string; name?: string; tags?: Array<{ key: string; value: string }>; at: string }>;
/** A live-status sync found the provider's status differing from the recorded one (GET /v1/instances/all?refresh=true). */
export type InstanceStatusSynced = DomainEvent<'compute.InstanceStatusSynced.v1', { instanceId: string; from: InstanceStatus; to: 'active' | 'stopped' | 'error' | 'terminated'; at: string }>;

export type InstanceEvent =
  | InstanceRequested
  | InstanceActionRequested
  | InstanceProvisioningStarted
  | InstanceProvisioned
  | InstanceStopped
  | InstanceRebooting
  | InstanceStarted
  | InstanceTerminated
  | InstanceOperationFailed
  | InstanceOperationRetried
  | InstanceUpdated
  | InstanceStatusSynced;

export const INSTANCE_EVENT_TYPES: readonly InstanceEvent['type'][] = [
  'compute.InstanceRequested.v1',
  'compute.InstanceActionRequested.v1',
  'compute.InstanceProvisioningStarted.v1',
  'compute.InstanceProvisioned.v1',
  'compute.InstanceStopped.v1',
  'compute.InstanceRebooting.v1',
  'compute.InstanceStarted.v1',
  'compute.InstanceTerminated.v1',
  'compute.InstanceOperationFailed.v1',
  'compute.InstanceOperationRetried.v1',
  'compute.InstanceUpdated.v1',
  'compute.InstanceStatusSynced.v1',
];

export const instanceStream = (instanceId: string) => `instance-${instanceId}`;
