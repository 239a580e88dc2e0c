import type { DomainEvent } from '../shared/domain-error';
import type { ServerSpecData } from './server.events';

/** What a backup was taken of: a server, or an instance through the instance aliases. */
export type BackupSource = 'server' | 'instance';

export type BackupCreated = DomainEvent<
  'compute.BackupCreated.v1',
  {
    backupId: string;
    projectId: string;
    name: string;
    source: BackupSource;
    /** The server id, or the instance id for instance backups. */
    resourceId: string;
    /** The machine as it was when backed up: what a restore provisions. */
    serverSpec: ServerSpecData;
    createdAt: string;
  }
>;
export type BackupArchived = DomainEvent<'compute.BackupArchived.v1', { backupId: string; reason: 'deleted' | 'restored'; restoredServerId: string | null; at: string }>;

export type BackupEvent = BackupCreated | BackupArchived;

export const BACKUP_EVENT_TYPES: readonly BackupEvent['type'][] = ['compute.BackupCreated.v1', 'compute.BackupArchived.v1'];

export const backupStream = (backupId: string) => `backup-${backupId}`;
