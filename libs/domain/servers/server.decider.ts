import { DomainError, type Decider } from '../shared/domain-error';
import type { ServerEvent, ServerOperation, ServerPowerAction, ServerSpecData, ServerStatus, Tag } from './server.events';

export type ServerState =
  | { status: 'none' }
  | {
      status: ServerStatus;
      serverId: string;
      projectId: string;
      spec: ServerSpecData;
      locked: boolean;
      externalId: string | null;
      /** The job whose outcome the server waits for; outcomes of superseded jobs are ignored. */
      currentJob: { jobId: string; operation: ServerOperation } | null;
    };

export type RequestServer = { type: 'RequestServer'; serverId: string; jobId: string; spec: ServerSpecData; restoredFromBackup?: string; now: string };
export type RequestServerPowerAction = { type: 'RequestServerPowerAction'; jobId: string; action: ServerPowerAction; now: string; requestedBy: string };
export type UpdateServer = {
  type: 'UpdateServer';
  /** Used only when the plan changes (the migration job). */
  jobId: string;
  label?: string;
  tags?: Tag[];
  locked?: boolean;
  plan?: { slug: string; name: string };
  now: string;
  requestedBy: string;
};
export type RequestServerDeletion = { type: 'RequestServerDeletion'; jobId: string; now: string; requestedBy: string };
export type BeginServerOperation = { type: 'BeginServerOperation'; jobId: string; now: string };
export type CompleteServerOperation = { type: 'CompleteServerOperation'; jobId: string; now: string; provisioned?: { externalId: string; ipv4: string } };
export type FailServerOperation = { type: 'FailServerOperation'; jobId: string; error: string; now: string };
/** A failed job was retried by hand (POST /v1/jobs/{id}/retry): back to the status its operation starts from. */
export type RetryServerOperation = { type: 'RetryServerOperation'; jobId: string; now: string };

export type ServerCommand =
  | RequestServer
  | RequestServerPowerAction
  | UpdateServer
  | RequestServerDeletion
  | BeginServerOperation
  | CompleteServerOperation
  | FailServerOperation
  | RetryServerOperation;

/** DECISIONS 8: the status a power action starts from and the one it moves to at once. */
export const POWER_ACTIONS: Record<ServerPowerAction, { from: ServerStatus; to: ServerStatus }> = {
  power_on: { from: 'stopped', to: 'starting' },
  power_off: { from: 'active', to: 'stopping' },
  reboot: { from: 'active', to: 'restarted' },
};

/** The status an operation starts from (where a manually retried job puts the server back). */
export const SERVER_OPERATION_START_STATUS: Record<ServerOperation, ServerStatus> = {
  create: 'creating',
  power_on: 'starting',
  power_off: 'stopping',
  reboot: 'restarted',
  migrate: 'migrating',
  delete: 'deleting',
};

/** Statuses with no operation in flight, from which a plan migration may start. */
const MIGRATABLE: readonly ServerStatus[] = ['active', 'stopped', 'error'];
const gone = (s: ServerStatus) => s === 'deleting' || s === 'terminated';

export const serverDecider: Decider<ServerCommand, ServerEvent, ServerState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'compute.ServerRequested.v1') {
      const { serverId, jobId, requestedAt: _r, restoredFromBackup: _b, ...spec } = event.data;
      return { status: 'creating', serverId, projectId: spec.projectId, spec, locked: false, externalId: null, currentJob: { jobId, operation: 'create' } };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'compute.ServerInstallStarted.v1':
        return { ...state, status: 'installing' };
      case 'compute.ServerActivated.v1':
        return { ...state, status: 'active', externalId: event.data.externalId ?? state.externalId, currentJob: null };
      case 'compute.ServerPowerActionRequested.v1':
        return { ...state, status: event.data.to, currentJob: { jobId: event.data.jobId, operation: event.data.action } };
      case 'compute.ServerPoweredOff.v1':
        return { ...state, status: 'stopped', currentJob: null };
      case 'compute.ServerMigrationRequested.v1':
        return { ...state, status: 'migrating', spec: { ...state.spec, plan: event.data.plan }, currentJob: { jobId: event.data.jobId, operation: 'migrate' } };
      case 'compute.ServerDeletionRequested.v1':
        return { ...state, status: 'deleting', currentJob: { jobId: event.data.jobId, operation: 'delete' } };
      case 'compute.ServerTerminated.v1':
        return { ...state, status: 'terminated', currentJob: null };
      case 'compute.ServerLockChanged.v1':
        return { ...state, locked: event.data.locked };
      case 'compute.ServerUpdated.v1':
        return {
          ...state,
          spec: { ...state.spec, ...(event.data.label !== undefined ? { label: event.data.label } : {}), ...(event.data.tags !== undefined ? { tags: event.data.tags } : {}) },
        };
      case 'compute.ServerOperationFailed.v1':
        return { ...state, status: 'error' };
      case 'compute.ServerOperationRetried.v1':
        return { ...state, status: event.data.status };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestServer') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Server ${command.serverId} already exists`);
      return [
        {
          type: 'compute.ServerRequested.v1',
          data: { ...command.spec, serverId: command.serverId, jobId: command.jobId, requestedAt: command.now, restoredFromBackup: command.restoredFromBackup ?? null },
        },
      ];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Server not found');
    const serverId = state.serverId;
    const job = state.currentJob;
    const mine = (jobId: string) => job !== null && job.jobId === jobId;
    /** Back from `error` to the status the current job's operation starts from. */
    const retried = (jobId: string, at: string): ServerEvent => ({
      type: 'compute.ServerOperationRetried.v1',
      data: { serverId, jobId, at, operation: job!.operation, status: SERVER_OPERATION_START_STATUS[job!.operation] },
    });
    const refuseLocked = (what: string) => {
      if (state.locked) throw new DomainError('INVALID_STATE', `Server ${serverId} is locked: unlock it before you ${what}`);
    };
    // The same job requested again (a process manager replaying after a crash): already done.
    if ((command.type === 'RequestServerPowerAction' || command.type === 'RequestServerDeletion') && mine(command.jobId)) return [];
    switch (command.type) {
      case 'RequestServerPowerAction': {
        refuseLocked(command.action);
        const rule = POWER_ACTIONS[command.action];
        if (state.status !== rule.from) throw new DomainError('INVALID_STATE', `Cannot ${command.action} a server in status ${state.status}`);
        return [
          {
            type: 'compute.ServerPowerActionRequested.v1',
            data: { serverId, jobId: command.jobId, action: command.action, from: state.status, to: rule.to, requestedAt: command.now, requestedBy: command.requestedBy },
          },
        ];
      }
      case 'UpdateServer': {
        if (gone(state.status)) throw new DomainError('INVALID_STATE', `Cannot update a server in status ${state.status}`);
        const planChanged = command.plan !== undefined && command.plan.slug !== state.spec.plan.slug;
        const others = command.label !== undefined || command.tags !== undefined || command.plan !== undefined;
        // An unlock in the same request does not make the other changes acceptable: unlock first.
        if (others) refuseLocked('change anything but `locked`');
        if (planChanged && !MIGRATABLE.includes(state.status)) throw new DomainError('INVALID_STATE', `Cannot change the plan of a server in status ${state.status}`);
        const at = command.now;
        const out: ServerEvent[] = [];
        if (command.label !== undefined || command.tags !== undefined) {
          out.push({ type: 'compute.ServerUpdated.v1', data: { serverId, ...(command.label !== undefined ? { label: command.label } : {}), ...(command.tags !== undefined ? { tags: command.tags } : {}), at } });
        }
        if (planChanged) {
          out.push({
            type: 'compute.ServerMigrationRequested.v1',
            data: { serverId, jobId: command.jobId, from: state.status, fromPlan: state.spec.plan, plan: command.plan!, requestedAt: at, requestedBy: command.requestedBy },
          });
        }
        if (command.locked !== undefined && command.locked !== state.locked) out.push({ type: 'compute.ServerLockChanged.v1', data: { serverId, locked: command.locked, at } });
        return out;
      }
      case 'RequestServerDeletion':
        refuseLocked('delete it');
        if (gone(state.status)) throw new DomainError('INVALID_STATE', `Cannot delete a server in status ${state.status}`);
        return [{ type: 'compute.ServerDeletionRequested.v1', data: { serverId, jobId: command.jobId, from: state.status, requestedAt: command.now, requestedBy: command.requestedBy } }];
      case 'BeginServerOperation': {
        if (!mine(command.jobId)) return [];
        const base = { serverId, jobId: command.jobId, at: command.now };
        const out: ServerEvent[] = [];
        let status = state.status;
        // Still in `error`: the job was retried without RetryServerOperation having reset the server.
        if (status === 'error') {
          status = SERVER_OPERATION_START_STATUS[job!.operation];
          out.push(retried(command.jobId, command.now));
        }
        if (job!.operation === 'create' && status === 'creating') out.push({ type: 'compute.ServerInstallStarted.v1', data: base });
        return out;
      }
      case 'CompleteServerOperation': {
        if (!mine(command.jobId)) return [];
        const base = { serverId, jobId: command.jobId, at: command.now };
        const op = job!.operation;
        switch (op) {
          case 'create': {
            const p = command.provisioned;
            if (!p) throw new Error('create completed without provisioning details');
            return [{ type: 'compute.ServerActivated.v1', data: { ...base, operation: 'create', externalId: p.externalId, ipv4: p.ipv4 } }];
          }
          case 'power_on':
          case 'reboot':
          case 'migrate':
            return [{ type: 'compute.ServerActivated.v1', data: { ...base, operation: op, externalId: null, ipv4: null } }];
          case 'power_off':
            return [{ type: 'compute.ServerPoweredOff.v1', data: base }];
          case 'delete':
            return [{ type: 'compute.ServerTerminated.v1', data: base }];
          default: {
            const never: never = op;
            return never;
          }
        }
      }
      case 'FailServerOperation':
        if (!mine(command.jobId) || state.status === 'error') return [];
        return [{ type: 'compute.ServerOperationFailed.v1', data: { serverId, jobId: command.jobId, operation: job!.operation, error: command.error, at: command.now } }];
      case 'RetryServerOperation':
        // Only the job the server waits for, and only out of its `error` (a retry the executor has
        // already begun, or a repeated command, changes nothing).
        if (!mine(command.jobId) || state.status !== 'error') return [];
        return [retried(command.jobId, command.now)];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
