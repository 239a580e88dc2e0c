import { DomainError, type Decider } from '../shared/domain-error';
import type { BackupCreated, BackupEvent } from './backup.events';

export type BackupState = { status: 'none' } | { status: 'available' | 'archived'; backup: BackupCreated['data'] };

export type CreateBackup = { type: 'CreateBackup'; backup: BackupCreated['data'] };
/** Deleting a backup and restoring from it both archive it (DECISIONS 8); an archived backup is gone. */
export type ArchiveBackup = { type: 'ArchiveBackup'; reason: 'deleted' | 'restored'; restoredServerId?: string; now: string };

export type BackupCommand = CreateBackup | ArchiveBackup;

export const backupDecider: Decider<BackupCommand, BackupEvent, BackupState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'compute.BackupCreated.v1':
        return { status: 'available', backup: event.data };
      case 'compute.BackupArchived.v1':
        return state.status === 'none' ? state : { ...state, status: 'archived' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateBackup':
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Backup ${command.backup.backupId} already exists`);
        return [{ type: 'compute.BackupCreated.v1', data: command.backup }];
      case 'ArchiveBackup':
        if (state.status !== 'available') throw new DomainError('NOT_FOUND', 'Backup not found');
        return [{ type: 'compute.BackupArchived.v1', data: { backupId: state.backup.backupId, reason: command.reason, restoredServerId: command.restoredServerId ?? null, at: command.now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
