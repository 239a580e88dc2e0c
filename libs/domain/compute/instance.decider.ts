import type { CatalogImage, CatalogPlan, CatalogRegion } from '../catalog/catalog.types';
import { hourlyPriceCents } from '../catalog/pricing';
import { DomainError, type Decider } from '../shared/domain-error';
import { decideOperation, evolveLifecycle, isOperationCommand, startOperation, type CurrentJob, type JobLifecycle, type OperationCommand } from '../shared/operations';
import type { Tag } from '../shared/tags';
import type { InstanceAction, InstanceEvent, InstanceOperation, InstanceSpecData, InstanceStatus } from './instance.events';

/** What the provider reports once it has (re)provisioned a machine. */
export type Provisioned = { externalId: string; hostname: string; ipv4: string; ipv6: string | null; sshUser: string; sshPort: number };

/** DECISIONS §6: each operation's start statuses, and the statuses its job moves the instance through. */
export const INSTANCE_LIFECYCLE: JobLifecycle<InstanceOperation, InstanceStatus, InstanceEvent, Provisioned> = {
  operations: {
    create: { from: [], transient: 'creating', working: 'provisioning', final: 'active' },
    stop: { from: ['active'], transient: 'stopping', final: 'stopped' },
    start: { from: ['stopped'], transient: 'starting', final: 'active' },
    // `starting` while the provider reboots it (DECISIONS 6).
    restart: { from: ['active'], transient: 'stopping', working: 'starting', final: 'active' },
    reinstall: { from: ['active', 'stopped'], transient: 'provisioning', final: 'active' },
    rescue: { from: ['active', 'stopped'], transient: 'provisioning', final: 'active' },
    terminate: { from: 'live', transient: 'terminating', final: 'terminated' },
  },
  gone: ['terminating', 'terminated'],
  events: {
    working: (op, { id, jobId, at }) =>
      op === 'create' ? { type: 'compute.InstanceProvisioningStarted.v1', data: { instanceId: id, jobId, at } } : { type: 'compute.InstanceRebooting.v1', data: { instanceId: id, jobId, at } },
    completed: (op, { id, jobId, at }, p) => {
      const base = { instanceId: id, jobId, at };
      switch (op) {
        case 'create':
        case 'reinstall':
        case 'rescue':
          if (!p) throw new DomainError('BAD_REQUEST', `${op} completed without provisioning details`);
          return { type: 'compute.InstanceProvisioned.v1', data: { ...base, operation: op, ...p } };
        case 'stop':
          return { type: 'compute.InstanceStopped.v1', data: base };
        case 'start':
        case 'restart':
          return { type: 'compute.InstanceStarted.v1', data: { ...base, operation: op } };
        case 'terminate':
          return { type: 'compute.InstanceTerminated.v1', data: base };
      }
    },
    failed: (operation, { id, jobId, at, error }) => ({ type: 'compute.InstanceOperationFailed.v1', data: { instanceId: id, jobId, operation, error, at } }),
    retried: (operation, { id, jobId, at, status }) => ({ type: 'compute.InstanceOperationRetried.v1', data: { instanceId: id, jobId, operation, status, at } }),
  },
  read: (e) => {
    switch (e.type) {
      case 'compute.InstanceRequested.v1':
        return { step: 'requested', jobId: e.data.jobId, operation: 'create' };
      case 'compute.InstanceActionRequested.v1':
        return { step: 'requested', jobId: e.data.jobId, operation: e.data.action };
      case 'compute.InstanceProvisioningStarted.v1':
        return { step: 'working', jobId: e.data.jobId, operation: 'create' };
      case 'compute.InstanceRebooting.v1':
        return { step: 'working', jobId: e.data.jobId, operation: 'restart' };
      case 'compute.InstanceProvisioned.v1':
      case 'compute.InstanceStarted.v1':
        return { step: 'completed', jobId: e.data.jobId, operation: e.data.operation };
      case 'compute.InstanceStopped.v1':
        return { step: 'completed', jobId: e.data.jobId, operation: 'stop' };
      case 'compute.InstanceTerminated.v1':
        return { step: 'completed', jobId: e.data.jobId, operation: 'terminate' };
      case 'compute.InstanceOperationFailed.v1':
        return { step: 'failed', jobId: e.data.jobId, operation: e.data.operation, error: e.data.error };
      case 'compute.InstanceOperationRetried.v1':
        return { step: 'retried', jobId: e.data.jobId, operation: e.data.operation };
      case 'compute.InstanceUpdated.v1':
      case 'compute.InstanceStatusSynced.v1':
        return null;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};

export type InstanceState =
  | { status: 'none' }
  | { status: InstanceStatus; id: string; projectId: string; spec: InstanceSpecData; externalId: string | null; currentJob: CurrentJob<InstanceOperation> };

/** A create as the client asked for it. */
export type InstanceRequest = {
  name: string;
  workerCount?: number;
  diskSizeGb?: number;
  sshKeyId?: string;
  spot?: boolean;
  ports?: number[];
  autoStopMinutes?: number;
  accelerators?: string;
  tags?: Tag[];
};
/** A create, with what the handler looked up: the project's provider, the catalog entries, the SSH key. */
export type RequestInstance = {
  type: 'RequestInstance';
  instanceId: string;
  jobId: string;
  projectId: string;
  request: InstanceRequest;
  provider: { id: string; kind: string };
  catalog: { plan: CatalogPlan; region: CatalogRegion; image: CatalogImage | null };
  sshKeyFingerprint: string | null;
  now: string;
};
export type RequestInstanceAction = {
  type: 'RequestInstanceAction';
  jobId: string;
  action: InstanceAction;
  viaDelete?: boolean;
  now: string;
  requestedBy: string;
  /** Volumes attached to the instance, or being attached or detached (the handler looks them up): a terminate is refused while there are any. */
  attachedVolumes?: string[];
};
export type UpdateInstance = { type: 'UpdateInstance'; name?: string; tags?: Tag[]; now: string };
/** What the provider reports live for this instance (a status sync). */
export type SyncInstanceStatus = { type: 'SyncInstanceStatus'; observed: 'active' | 'stopped' | 'error' | 'terminated' | 'unknown'; now: string };

export type InstanceCommand = RequestInstance | RequestInstanceAction | UpdateInstance | SyncInstanceStatus | OperationCommand<Provisioned>;

/** `web server` in us-east-1 → `web-server.us-east-1`. */
export const instanceHostname = (name: string, region: string) => `${name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'instance'}.${region}`;

/** The instance a create records: the request, completed from the plan (sizes, accelerators by default, price). */
export function instanceSpec(c: RequestInstance): InstanceSpecData {
  const { request: r, catalog: { plan, region, image } } = c;
  const [gpuType, gpuCount] = r.accelerators ? r.accelerators.split(':') : [plan.gpuType, String(plan.gpuCount)];
  return {
    projectId: c.projectId,
    providerId: c.provider.id,
    providerKind: c.provider.kind,
    name: r.name,
    hostname: instanceHostname(r.name, region.slug),
    region: region.slug,
    site: region.site,
    instanceType: plan.slug,
    plan: { slug: plan.slug, name: plan.name },
    image: image?.slug ?? null,
    operatingSystem: image ? { slug: image.osSlug, name: image.name } : null,
    diskSizeGb: r.diskSizeGb ?? null,
    workerCount: r.workerCount ?? 1,
    spot: r.spot ?? false,
    ports: r.ports ?? [],
    autoStopMinutes: r.autoStopMinutes ?? null,
    accelerators: r.accelerators ?? null,
    sshKeyId: r.sshKeyId ?? null,
    sshKeyFingerprint: c.sshKeyFingerprint,
    tags: r.tags ?? [],
    vcpus: plan.cpuCores,
    ramMb: plan.memoryGb * 1024,
    diskGb: r.diskSizeGb ?? plan.diskGb,
    gpus: Number(gpuCount ?? 0) || 0,
    gpuType: gpuType ?? null,
    hourlyPriceCents: hourlyPriceCents('instance', plan),
  };
}

export const instanceDecider: Decider<InstanceCommand, InstanceEvent, InstanceState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'compute.InstanceRequested.v1') {
      const { instanceId, jobId, requestedAt: _r, ...spec } = event.data;
      return { status: 'creating', id: instanceId, projectId: spec.projectId, spec, externalId: null, currentJob: { jobId, operation: 'create' } };
    }
    if (state.status === 'none') return state;
    const next = { ...state, ...evolveLifecycle(INSTANCE_LIFECYCLE, state, event) };
    switch (event.type) {
      case 'compute.InstanceProvisioned.v1':
        return { ...next, externalId: event.data.externalId };
      case 'compute.InstanceUpdated.v1':
        return { ...next, spec: { ...next.spec, ...(event.data.name ? { name: event.data.name } : {}), ...(event.data.tags ? { tags: event.data.tags } : {}) } };
      case 'compute.InstanceStatusSynced.v1':
        return { ...next, status: event.data.to };
      default:
        return next;
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestInstance') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Instance ${command.instanceId} already exists`);
      return [{ type: 'compute.InstanceRequested.v1', data: { ...instanceSpec(command), instanceId: command.instanceId, jobId: command.jobId, requestedAt: command.now } }];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Instance not found');
    if (isOperationCommand<Provisioned>(command)) return decideOperation(INSTANCE_LIFECYCLE, state, command);
    switch (command.type) {
      case 'RequestInstanceAction': {
        // The same job requested again (a process manager replaying after a crash): already done.
        if (state.currentJob?.jobId === command.jobId) return [];
        const { action, jobId } = command;
        const to = startOperation(INSTANCE_LIFECYCLE, action, state.status, `Cannot ${action} an instance`);
        // Refused rather than detached in the same job: a failed detach would leave the instance half torn down.
        if (action === 'terminate' && command.attachedVolumes?.length) {
          throw new DomainError('INVALID_STATE', `Detach volume${command.attachedVolumes.length > 1 ? 's' : ''} ${command.attachedVolumes.join(', ')} before terminating the instance`);
        }
        // Rescue boots the rescue image of the instance's OS family.
        const rescueImage = action === 'rescue' ? { rescueImage: `rescue-${state.spec.operatingSystem?.slug ?? 'linux'}` } : {};
        const jobType = command.viaDelete ? 'instance.delete' : 'instance.action';
        return [
          { type: 'compute.InstanceActionRequested.v1', data: { instanceId: state.id, jobId, jobType, action, from: state.status, to, requestedAt: command.now, requestedBy: command.requestedBy, ...rescueImage } },
        ];
      }
      case 'UpdateInstance':
        if (INSTANCE_LIFECYCLE.gone.includes(state.status)) throw new DomainError('INVALID_STATE', `Cannot update an instance in status ${state.status}`);
        if (command.name === undefined && command.tags === undefined) return [];
        return [{ type: 'compute.InstanceUpdated.v1', data: { instanceId: state.id, name: command.name, tags: command.tags, at: command.now } }];
      case 'SyncInstanceStatus': {
        // Only a settled instance takes the provider's word: one with a job in flight is about to
        // change anyway, and its job's outcome is the authority for it.
        if (state.currentJob || (state.status !== 'active' && state.status !== 'stopped' && state.status !== 'error')) return [];
        if (command.observed === 'unknown' || command.observed === state.status) return [];
        return [{ type: 'compute.InstanceStatusSynced.v1', data: { instanceId: state.id, from: state.status, to: command.observed, at: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
