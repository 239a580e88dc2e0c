import type { DomainEvent } from '../shared/domain-error';

/** Spec 3.2 statuses plus `migrating` (DECISIONS 8). */
export const SERVER_STATUSES = [
  'active',
  'creating',
  'deleting',
  'error',
  'inactive',
  'installing',
  'maintenance',
  'pending',
  'rescued',
  'rescuing',
  'restarted',
  'scheduled',
  'starting',
  'stopped',
  'stopping',
  'suspended',
  'terminated',
  'updating',
  'waiting',
  'migrating',
] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];
export type ServerRole = 'BareMetal' | 'VirtualMachine';
export type ServerPowerAction = 'power_on' | 'power_off' | 'reboot';
/** What a job does to a server. */
export type ServerOperation = 'create' | ServerPowerAction | 'migrate' | 'delete';
export type Tag = { key: string; value: string };

export type ServerSpecData = {
  projectId: string;
  /** The provider the machine lives at: the project's provider for VMs, the plan's provider for bare metal. */
  providerId: string | null;
  providerKind: string;
  name: string;
  hostname: string;
  label: string;
  role: ServerRole;
  site: string;
  region: string;
  plan: { slug: string; name: string };
  operatingSystem: { slug: string; name: string };
  billing: 'hourly' | 'monthly' | 'yearly';
  sshKeys: string[];
  userData: string | null;
  tags: Tag[];
  workerCount: number;
  spot: boolean;
  accelerators: string | null;
  /** The plan's price per hour in USD cents when requested (usage, DECISIONS 16); absent in events recorded before it was kept. */
  hourlyPriceCents?: number | null;
};

type Op = { serverId: string; jobId: string; at: string };

export type ServerRequested = DomainEvent<'compute.ServerRequested.v1', ServerSpecData & { serverId: string; jobId: string; requestedAt: string; restoredFromBackup: string | null }>;
export type ServerInstallStarted = DomainEvent<'compute.ServerInstallStarted.v1', Op>;
export type ServerActivated = DomainEvent<'compute.ServerActivated.v1', Op & { operation: 'create' | 'power_on' | 'reboot' | 'migrate'; externalId: string | null; ipv4: string | null }>;
export type ServerPowerActionRequested = DomainEvent<
  'compute.ServerPowerActionRequested.v1',
  { serverId: string; jobId: string; action: ServerPowerAction; from: ServerStatus; to: ServerStatus; requestedAt: string; requestedBy: string }
>;
export type ServerPoweredOff = DomainEvent<'compute.ServerPoweredOff.v1', Op>;
export type ServerMigrationRequested = DomainEvent<
  'compute.ServerMigrationRequested.v1',
  { serverId: string; jobId: string; from: ServerStatus; fromPlan: { slug: string; name: string }; plan: { slug: string; name: string }; hourlyPriceCents?: number | null; requestedAt: string; requestedBy: string }
>;
export type ServerDeletionRequested = DomainEvent<'compute.ServerDeletionRequested.v1', { serverId: string; jobId: string; from: ServerStatus; requestedAt: string; requestedBy: string }>;
export type ServerTerminated = DomainEvent<'compute.ServerTerminated.v1', Op>;
export type ServerLockChanged = DomainEvent<'compute.ServerLockChanged.v1', { serverId: string; locked: boolean; at: string }>;
export type ServerUpdated = DomainEvent<'compute.ServerUpdated.v1', { serverId: string; label?: string; tags?: Tag[]; at: string }>;
export type ServerOperationFailed = DomainEvent<'compute.ServerOperationFailed.v1', Op & { operation: ServerOperation; error: string }>;
/** A manually retried job begins again: the server goes back to the status its operation starts from. */
export type ServerOperationRetried = DomainEvent<'compute.ServerOperationRetried.v1', Op & { operation: ServerOperation; status: ServerStatus }>;

export type ServerEvent =
  | ServerRequested
  | ServerInstallStarted
  | ServerActivated
  | ServerPowerActionRequested
  | ServerPoweredOff
  | ServerMigrationRequested
  | ServerDeletionRequested
  | ServerTerminated
  | ServerLockChanged
  | ServerUpdated
  | ServerOperationFailed
  | ServerOperationRetried;

export const SERVER_EVENT_TYPES: readonly ServerEvent['type'][] = [
  'compute.ServerRequested.v1',
  'compute.ServerInstallStarted.v1',
  'compute.ServerActivated.v1',
  'compute.ServerPowerActionRequested.v1',
  'compute.ServerPoweredOff.v1',
  'compute.ServerMigrationRequested.v1',
  'compute.ServerDeletionRequested.v1',
  'compute.ServerTerminated.v1',
  'compute.ServerLockChanged.v1',
  'compute.ServerUpdated.v1',
  'compute.ServerOperationFailed.v1',
  'compute.ServerOperationRetried.v1',
];

export const serverStream = (serverId: string) => `server-${serverId}`;
