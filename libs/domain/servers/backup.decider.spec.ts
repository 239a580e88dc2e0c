import { deciderSpec } from '../shared/decider-spec';
import { backupDecider } from './backup.decider';
import type { BackupCreated, BackupEvent } from './backup.events';

const given = deciderSpec(backupDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const backup: BackupCreated['data'] = {
  backupId: 'bk1',
  projectId: 'p1',
  name: 'nightly',
  source: 'server',
  resourceId: 's1',
  serverSpec: {
    projectId: 'p1',
    providerId: null,
    providerKind: 'provider_baremetal',
    name: 'db',
    hostname: 'db.example.com',
    label: 'db',
    role: 'BareMetal',
    site: 'NYC',
    region: 'NYC',
    plan: { slug: 'c3-medium-x86', name: 'c3.medium.x86' },
    operatingSystem: { slug: 'debian_12', name: 'Debian 12' },
    billing: 'hourly',
    sshKeys: [],
    userData: null,
    tags: [],
    workerCount: 1,
    spot: false,
    accelerators: null,
  },
  createdAt: now,
};
const created: BackupEvent = { type: 'compute.BackupCreated.v1', data: backup };
const archived = (reason: 'deleted' | 'restored', restoredServerId: string | null): BackupEvent => ({ type: 'compute.BackupArchived.v1', data: { backupId: 'bk1', reason, restoredServerId, at: later } });

describe('backup decider', () => {
  describe('CreateBackup', () => {
    it('records the machine as it was', () => {
      given([]).when({ type: 'CreateBackup', backup }).then([created]);
    });

    it('refuses an id that exists, archived or not', () => {
      given([created]).when({ type: 'CreateBackup', backup }).thenThrows('CONFLICT');
      given([created, archived('deleted', null)]).when({ type: 'CreateBackup', backup }).thenThrows('CONFLICT');
    });
  });

  describe('ArchiveBackup', () => {
    it('archives a deleted backup, and a restored one with the server it became', () => {
      given([created]).when({ type: 'ArchiveBackup', reason: 'deleted', now: later }).then([archived('deleted', null)]);
      given([created]).when({ type: 'ArchiveBackup', reason: 'restored', restoredServerId: 's2', now: later }).then([archived('restored', 's2')]);
    });

    it('answers NOT_FOUND for a missing backup, and for one already archived (deleted or restored)', () => {
      given([]).when({ type: 'ArchiveBackup', reason: 'deleted', now: later }).thenThrows('NOT_FOUND');
      given([created, archived('deleted', null)]).when({ type: 'ArchiveBackup', reason: 'deleted', now: later }).thenThrows('NOT_FOUND');
      given([created, archived('restored', 's2')]).when({ type: 'ArchiveBackup', reason: 'restored', restoredServerId: 's3', now: later }).thenThrows('NOT_FOUND');
    });
  });
});
