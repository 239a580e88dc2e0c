import type { CatalogOs, CatalogPlan, CatalogRegion } from '../catalog/catalog.types';
import { hourlyPriceCents } from '../catalog/pricing';
import { DomainError, type Decider } from '../shared/domain-error';
import { decideOperation, evolveLifecycle, isOperationCommand, startOperation, type CurrentJob, type JobLifecycle, type OperationCommand } from '../shared/operations';
import type { ServerEvent, ServerOperation, ServerPowerAction, ServerRole, ServerSpecData, ServerStatus, Tag } from './server.events';

/** What the provider reports once it has created the machine. */
export type ServerProvisioned = { externalId: string; ipv4: string };

/** DECISIONS 8: each operation's start statuses, and the statuses its job moves the server through. */
export const SERVER_LIFECYCLE: JobLifecycle<ServerOperation, ServerStatus, ServerEvent, ServerProvisioned> = {
  operations: {
    create: { from: [], transient: 'creating', working: 'installing', final: 'active' },
    power_on: { from: ['stopped'], transient: 'starting', final: 'active' },
    power_off: { from: ['active'], transient: 'stopping', final: 'stopped' },
    reboot: { from: ['active'], transient: 'restarted', final: 'active' },
    // Statuses with no operation in flight.
    migrate: { from: ['active', 'stopped', 'error'], transient: 'migrating', final: 'active' },
    delete: { from: 'live', transient: 'deleting', final: 'terminated' },
  },
  gone: ['deleting', 'terminated'],
  events: {
    working: (_op, { id, jobId, at }) => ({ type: 'compute.ServerInstallStarted.v1', data: { serverId: id, jobId, at } }),
    completed: (op, { id, jobId, at }, p) => {
      const base = { serverId: id, jobId, at };
      switch (op) {
        case 'create':
          if (!p) throw new DomainError('BAD_REQUEST', 'create completed without provisioning details');
          return { type: 'compute.ServerActivated.v1', data: { ...base, operation: op, externalId: p.externalId, ipv4: p.ipv4 } };
        case 'power_on':
        case 'reboot':
        case 'migrate':
          return { type: 'compute.ServerActivated.v1', data: { ...base, operation: op, externalId: null, ipv4: null } };
        case 'power_off':
          return { type: 'compute.ServerPoweredOff.v1', data: base };
        case 'delete':
          return { type: 'compute.ServerTerminated.v1', data: base };
      }
    },
    failed: (operation, { id, jobId, at, error }) => ({ type: 'compute.ServerOperationFailed.v1', data: { serverId: id, jobId, at, operation, error } }),
    retried: (operation, { id, jobId, at, status }) => ({ type: 'compute.ServerOperationRetried.v1', data: { serverId: id, jobId, at, operation, status } }),
  },
  read: (e) => {
    switch (e.type) {
      case 'compute.ServerRequested.v1':
        return { step: 'requested', jobId: e.data.jobId, operation: 'create' };
      case 'compute.ServerPowerActionRequested.v1':
        return { step: 'requested', jobId: e.data.jobId, operation: e.data.action };
      case 'compute.ServerMigrationRequested.v1':
        return { step: 'requested', jobId: e.data.jobId, operation: 'migrate' };
      case 'compute.ServerDeletionRequested.v1':
        return { step: 'requested', jobId: e.data.jobId, operation: 'delete' };
      case 'compute.ServerInstallStarted.v1':
        return { step: 'working', jobId: e.data.jobId, operation: 'create' };
      case 'compute.ServerActivated.v1':
        return { step: 'completed', jobId: e.data.jobId, operation: e.data.operation };
      case 'compute.ServerPoweredOff.v1':
        return { step: 'completed', jobId: e.data.jobId, operation: 'power_off' };
      case 'compute.ServerTerminated.v1':
        return { step: 'completed', jobId: e.data.jobId, operation: 'delete' };
      case 'compute.ServerOperationFailed.v1':
        return { step: 'failed', jobId: e.data.jobId, operation: e.data.operation, error: e.data.error };
      case 'compute.ServerOperationRetried.v1':
        return { step: 'retried', jobId: e.data.jobId, operation: e.data.operation };
      case 'compute.ServerLockChanged.v1':
      case 'compute.ServerUpdated.v1':
        return null;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};

export type ServerState =
  | { status: 'none' }
  | { status: ServerStatus; id: string; projectId: string; spec: ServerSpecData; locked: boolean; externalId: string | null; currentJob: CurrentJob<ServerOperation> };

type ServerPlan = CatalogPlan & { providerKind: string };
/** A create as the client asked for it. */
export type ServerRequest = {
  name: string;
  hostname: string;
  billing: ServerSpecData['billing'];
  role?: ServerRole;
  sshKeys?: string[];
  userData?: string;
  tags?: Tag[];
  workerCount?: number;
  spot?: boolean;
  accelerators?: string;
};
/** A create, with what the handler looked up: the plan, the named provider, the site's region, the OS. */
export type RequestServer = {
  type: 'RequestServer';
  serverId: string;
  jobId: string;
  projectId: string;
  request: ServerRequest;
  catalog: { plan: ServerPlan; provider: { id: string; kind: string } | null; region: CatalogRegion & { providerKind: string }; os: CatalogOs };
  now: string;
};
/** A new server with a backup's machine spec. */
export type RestoreServer = { type: 'RestoreServer'; serverId: string; jobId: string; spec: ServerSpecData; backupId: string; now: string };
export type RequestServerPowerAction = { type: 'RequestServerPowerAction'; jobId: string; action: ServerPowerAction; now: string; requestedBy: string };
export type UpdateServer = {
  type: 'UpdateServer';
  /** Used only when the plan changes (the migration job). */
  jobId: string;
  label?: string;
  tags?: Tag[];
  locked?: boolean;
  plan?: ServerPlan;
  now: string;
  requestedBy: string;
};
export type RequestServerDeletion = { type: 'RequestServerDeletion'; jobId: string; now: string; requestedBy: string };

export type ServerCommand = RequestServer | RestoreServer | RequestServerPowerAction | UpdateServer | RequestServerDeletion | OperationCommand<ServerProvisioned>;

/** A plan's category decides the machine: virtual-machine plans make VirtualMachines. */
export const planRole = (plan: Pick<CatalogPlan, 'category'>): ServerRole => (plan.category.startsWith('virtual-machine') ? 'VirtualMachine' : 'BareMetal');

/** The catalog rules of a create (422 INVALID_PLAN), then the server it records. */
export function serverSpec(c: RequestServer): ServerSpecData {
  const { request: r, catalog: { plan, provider, region, os } } = c;
  const role = r.role ?? planRole(plan);
  if (role !== planRole(plan)) throw new DomainError('INVALID_PLAN', `Plan ${plan.slug} is a ${planRole(plan)} plan; role ${role} needs a ${role} plan`);
  if (provider && provider.kind !== plan.providerKind) throw new DomainError('INVALID_PLAN', `Plan ${plan.slug} is not offered by provider ${provider.kind}`);
  if (region.providerKind !== plan.providerKind || !plan.regions.includes(region.slug)) throw new DomainError('INVALID_PLAN', `Plan ${plan.slug} is not available at site ${region.site}`);
  return {
    projectId: c.projectId,
    providerId: provider?.id ?? null,
    providerKind: plan.providerKind,
    name: r.name,
    hostname: r.hostname,
    label: r.name,
    role,
    site: region.site,
    region: region.slug,
    plan: { slug: plan.slug, name: plan.name },
    operatingSystem: { slug: os.slug, name: os.name },
    billing: r.billing,
    sshKeys: r.sshKeys ?? [],
    userData: r.userData ?? null,
    tags: r.tags ?? [],
    workerCount: r.workerCount ?? 1,
    spot: r.spot ?? false,
    accelerators: r.accelerators ?? null,
    hourlyPriceCents: hourlyPriceCents('server', plan),
  };
}

export const serverDecider: Decider<ServerCommand, ServerEvent, ServerState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'compute.ServerRequested.v1') {
      const { serverId, jobId, requestedAt: _r, restoredFromBackup: _b, ...spec } = event.data;
      return { status: 'creating', id: serverId, projectId: spec.projectId, spec, locked: false, externalId: null, currentJob: { jobId, operation: 'create' } };
    }
    if (state.status === 'none') return state;
    const next = { ...state, ...evolveLifecycle(SERVER_LIFECYCLE, state, event) };
    switch (event.type) {
      case 'compute.ServerActivated.v1':
        return { ...next, externalId: event.data.externalId ?? state.externalId };
      case 'compute.ServerMigrationRequested.v1':
        return { ...next, spec: { ...state.spec, plan: event.data.plan } };
      case 'compute.ServerLockChanged.v1':
        return { ...next, locked: event.data.locked };
      case 'compute.ServerUpdated.v1':
        return { ...next, spec: { ...state.spec, ...(event.data.label !== undefined ? { label: event.data.label } : {}), ...(event.data.tags !== undefined ? { tags: event.data.tags } : {}) } };
      default:
        return next;
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestServer' || command.type === 'RestoreServer') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Server ${command.serverId} already exists`);
      const [spec, restoredFromBackup] = command.type === 'RequestServer' ? [serverSpec(command), null] : [command.spec, command.backupId];
      return [{ type: 'compute.ServerRequested.v1', data: { ...spec, serverId: command.serverId, jobId: command.jobId, requestedAt: command.now, restoredFromBackup } }];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Server not found');
    if (isOperationCommand<ServerProvisioned>(command)) return decideOperation(SERVER_LIFECYCLE, state, command);
    const serverId = state.id;
    const refuseLocked = (what: string) => {
      if (state.locked) throw new DomainError('INVALID_STATE', `Server ${serverId} is locked: unlock it before you ${what}`);
    };
    // The same job requested again (a process manager replaying after a crash): already done.
    if ((command.type === 'RequestServerPowerAction' || command.type === 'RequestServerDeletion') && state.currentJob?.jobId === command.jobId) return [];
    switch (command.type) {
      case 'RequestServerPowerAction': {
        refuseLocked(command.action);
        const to = startOperation(SERVER_LIFECYCLE, command.action, state.status, `Cannot ${command.action} a server`);
        return [
          {
            type: 'compute.ServerPowerActionRequested.v1',
            data: { serverId, jobId: command.jobId, action: command.action, from: state.status, to, requestedAt: command.now, requestedBy: command.requestedBy },
          },
        ];
      }
      case 'UpdateServer': {
        const { plan, label, tags, locked, now: at } = command;
        if (plan && (plan.providerKind !== state.spec.providerKind || !plan.regions.includes(state.spec.region))) {
          throw new DomainError('INVALID_PLAN', `Plan ${plan.slug} is not available at site ${state.spec.site}`);
        }
        if (SERVER_LIFECYCLE.gone.includes(state.status)) throw new DomainError('INVALID_STATE', `Cannot update a server in status ${state.status}`);
        const planChanged = plan !== undefined && plan.slug !== state.spec.plan.slug;
        // An unlock in the same request does not make the other changes acceptable: unlock first.
        if (label !== undefined || tags !== undefined || plan !== undefined) refuseLocked('change anything but `locked`');
        if (planChanged) startOperation(SERVER_LIFECYCLE, 'migrate', state.status, 'Cannot change the plan of a server');
        const out: ServerEvent[] = [];
        if (label !== undefined || tags !== undefined) out.push({ type: 'compute.ServerUpdated.v1', data: { serverId, ...(label !== undefined ? { label } : {}), ...(tags !== undefined ? { tags } : {}), at } });
        if (planChanged) {
          const to = { slug: plan.slug, name: plan.name };
          out.push({ type: 'compute.ServerMigrationRequested.v1', data: { serverId, jobId: command.jobId, from: state.status, fromPlan: state.spec.plan, plan: to, hourlyPriceCents: hourlyPriceCents('server', plan), requestedAt: at, requestedBy: command.requestedBy } });
        }
        if (locked !== undefined && locked !== state.locked) out.push({ type: 'compute.ServerLockChanged.v1', data: { serverId, locked, at } });
        return out;
      }
      case 'RequestServerDeletion':
        refuseLocked('delete it');
        startOperation(SERVER_LIFECYCLE, 'delete', state.status, 'Cannot delete a server');
        return [{ type: 'compute.ServerDeletionRequested.v1', data: { serverId, jobId: command.jobId, from: state.status, requestedAt: command.now, requestedBy: command.requestedBy } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
