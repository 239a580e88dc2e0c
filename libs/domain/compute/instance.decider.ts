import { DomainError, type Decider } from '../shared/domain-error';
import type { InstanceAction, InstanceEvent, InstanceOperation, InstanceSpecData, InstanceStatus } from './instance.events';

export type InstanceState =
  | { status: 'none' }
  | {
      status: InstanceStatus;
      instanceId: string;
      projectId: string;
      spec: InstanceSpecData;
      externalId: string | null;
      /** The job whose outcome the instance waits for; outcomes of superseded jobs are ignored. */
      currentJob: { jobId: string; operation: InstanceOperation; startedFrom: InstanceStatus } | null;
    };

export type RequestInstance = { type: 'RequestInstance'; instanceId: string; jobId: string; spec: InstanceSpecData; now: string };
export type RequestInstanceAction = { type: 'RequestInstanceAction'; jobId: string; action: InstanceAction; viaDelete?: boolean; now: string; requestedBy: string; rescueImage?: string };
export type BeginInstanceOperation = { type: 'BeginInstanceOperation'; jobId: string; now: string };
export type CompleteInstanceOperation = {
  type: 'CompleteInstanceOperation';
  jobId: string;
  now: string;
  provisioned?: { externalId: string; hostname: string; ipv4: string; ipv6: string | null; sshUser: string; sshPort: number };
};
export type FailInstanceOperation = { type: 'FailInstanceOperation'; jobId: string; error: string; now: string };
export type RetryInstanceOperation = { type: 'RetryInstanceOperation'; jobId: string; now: string };
export type UpdateInstance = { type: 'UpdateInstance'; name?: string; tags?: Array<{ key: string; value: string }>; now: string };
/** What the provider reports live for this instance (a status sync). */
export type SyncInstanceStatus = { type: 'SyncInstanceStatus'; observed: 'active' | 'stopped' | 'error' | 'terminated' | 'unknown'; now: string };

export type InstanceCommand =
  | RequestInstance
  | RequestInstanceAction
  | BeginInstanceOperation
  | CompleteInstanceOperation
  | FailInstanceOperation
  | RetryInstanceOperation
  | UpdateInstance
  | SyncInstanceStatus;

/** DECISIONS §6: which statuses an action may start from, and the status it moves to at once. */
const ACTIONS: Record<InstanceAction, { from: readonly InstanceStatus[] | 'any-live'; to: InstanceStatus }> = {
  stop: { from: ['active'], to: 'stopping' },
  start: { from: ['stopped'], to: 'starting' },
  restart: { from: ['active'], to: 'stopping' },
  reinstall: { from: ['active', 'stopped'], to: 'provisioning' },
  rescue: { from: ['active', 'stopped'], to: 'provisioning' },
  terminate: { from: 'any-live', to: 'terminating' },
};

/** The status an operation starts from (where a manual retry puts the instance back). */
export const OPERATION_START_STATUS: Record<InstanceOperation, InstanceStatus> = {
  create: 'creating',
  stop: 'stopping',
  start: 'starting',
  restart: 'stopping',
  reinstall: 'provisioning',
  rescue: 'provisioning',
  terminate: 'terminating',
};

export function actionAllowed(action: InstanceAction, status: InstanceStatus): boolean {
  const rule = ACTIONS[action];
  return rule.from === 'any-live' ? status !== 'terminating' && status !== 'terminated' : rule.from.includes(status);
}

export const instanceDecider: Decider<InstanceCommand, InstanceEvent, InstanceState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'compute.InstanceRequested.v1') {
      const { instanceId, jobId, requestedAt: _r, ...spec } = event.data;
      return { status: 'creating', instanceId, projectId: spec.projectId, spec, externalId: null, currentJob: { jobId, operation: 'create', startedFrom: 'creating' } };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'compute.InstanceActionRequested.v1':
        return { ...state, status: event.data.to, currentJob: { jobId: event.data.jobId, operation: event.data.action, startedFrom: event.data.to } };
      case 'compute.InstanceProvisioningStarted.v1':
        return { ...state, status: 'provisioning' };
      case 'compute.InstanceProvisioned.v1':
        return { ...state, status: 'active', externalId: event.data.externalId, currentJob: null };
      case 'compute.InstanceStopped.v1':
        return { ...state, status: 'stopped', currentJob: null };
      case 'compute.InstanceRebooting.v1':
        return { ...state, status: 'starting' };
      case 'compute.InstanceStarted.v1':
        return { ...state, status: 'active', currentJob: null };
      case 'compute.InstanceTerminated.v1':
        return { ...state, status: 'terminated', currentJob: null };
      case 'compute.InstanceOperationFailed.v1':
        return { ...state, status: 'error' };
      case 'compute.InstanceOperationRetried.v1':
        return { ...state, status: event.data.status };
      case 'compute.InstanceUpdated.v1':
        return { ...state, spec: { ...state.spec, ...(event.data.name ? { name: event.data.name } : {}), ...(event.data.tags ? { tags: event.data.tags } : {}) } };
      case 'compute.InstanceStatusSynced.v1':
        return { ...state, status: event.data.to };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestInstance') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Instance ${command.instanceId} already exists`);
      return [{ type: 'compute.InstanceRequested.v1', data: { ...command.spec, instanceId: command.instanceId, jobId: command.jobId, requestedAt: command.now } }];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Instance not found');
    const instanceId = state.instanceId;
    const job = state.currentJob;
    const mine = (jobId: string) => job !== null && job.jobId === jobId;
    switch (command.type) {
      case 'RequestInstanceAction': {
        // The same job requested again (a process manager replaying after a crash): already done.
        if (job?.jobId === command.jobId) return [];
        if (!actionAllowed(command.action, state.status)) {
          throw new DomainError('INVALID_STATE', `Cannot ${command.action} an instance in status ${state.status}`);
        }
        const to = ACTIONS[command.action].to;
        return [
          {
            type: 'compute.InstanceActionRequested.v1',
            data: {
              instanceId,
              jobId: command.jobId,
              jobType: command.viaDelete ? 'instance.delete' : 'instance.action',
              action: command.action,
              from: state.status,
              to,
              requestedAt: command.now,
              requestedBy: command.requestedBy,
              ...(command.rescueImage ? { rescueImage: command.rescueImage } : {}),
            },
          },
        ];
      }
      case 'BeginInstanceOperation':
        if (!mine(command.jobId)) return [];
        if (job!.operation === 'create' && state.status === 'creating') return [{ type: 'compute.InstanceProvisioningStarted.v1', data: { instanceId, jobId: command.jobId, at: command.now } }];
        // A restart is stopping until the provider reboots it: `starting` while the reboot runs (DECISIONS 6).
        if (job!.operation === 'restart' && state.status === 'stopping') return [{ type: 'compute.InstanceRebooting.v1', data: { instanceId, jobId: command.jobId, at: command.now } }];
        return [];
      case 'CompleteInstanceOperation': {
        // From `error` too: a manually retried job that now succeeds brings the instance back.
        if (!mine(command.jobId)) return [];
        const base = { instanceId, jobId: command.jobId, at: command.now };
        switch (job!.operation) {
          case 'create':
          case 'reinstall':
          case 'rescue': {
            const p = command.provisioned;
            if (!p) throw new Error(`${job!.operation} completed without provisioning details`);
            return [{ type: 'compute.InstanceProvisioned.v1', data: { ...base, operation: job!.operation, ...p } }];
          }
          case 'stop':
            return [{ type: 'compute.InstanceStopped.v1', data: base }];
          case 'start':
            return [{ type: 'compute.InstanceStarted.v1', data: { ...base, operation: 'start' } }];
          case 'restart':
            return [{ type: 'compute.InstanceStarted.v1', data: { ...base, operation: 'restart' } }];
          case 'terminate':
            return [{ type: 'compute.InstanceTerminated.v1', data: base }];
          default: {
            const never: never = job!.operation;
            return never;
          }
        }
      }
      case 'FailInstanceOperation':
        if (!mine(command.jobId) || state.status === 'error') return [];
        return [{ type: 'compute.InstanceOperationFailed.v1', data: { instanceId, jobId: command.jobId, operation: job!.operation, error: command.error, at: command.now } }];
      case 'RetryInstanceOperation': {
        // Only out of the `error` its failed job left (a repeated or concurrent retry changes nothing).
        if (!mine(command.jobId) || state.status !== 'error') return [];
        const status = OPERATION_START_STATUS[job!.operation];
        return [{ type: 'compute.InstanceOperationRetried.v1', data: { instanceId, jobId: command.jobId, operation: job!.operation, status, at: command.now } }];
      }
      case 'UpdateInstance':
        if (state.status === 'terminated' || state.status === 'terminating') {
          throw new DomainError('INVALID_STATE', `Cannot update an instance in status ${state.status}`);
        }
        if (command.name === undefined && command.tags === undefined) return [];
        return [{ type: 'compute.InstanceUpdated.v1', data: { instanceId, name: command.name, tags: command.tags, at: command.now } }];
      case 'SyncInstanceStatus': {
        // Only a settled instance takes the provider's word: one with a job in flight is about to
        // change anyway, and its job's outcome is the authority for it.
        if (state.currentJob || (state.status !== 'active' && state.status !== 'stopped' && state.status !== 'error')) return [];
        if (command.observed === 'unknown' || command.observed === state.status) return [];
        return [{ type: 'compute.InstanceStatusSynced.v1', data: { instanceId, from: state.status, to: command.observed, at: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
