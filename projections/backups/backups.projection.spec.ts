import { logRecorder, projected } from '../../test/support/projector';
import { backupsProjection } from './backups.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const serverSpec = { projectId: 'p1', providerId: 'prov1', providerKind: 'provider_baremetal', name: 'db', hostname: 'db-1', label: 'db', role: 'BareMetal', site: 'LOS1', region: 'af-west-1', plan: { slug: 'small', name: 'Small' }, operatingSystem: { slug: 'ubuntu', name: 'Ubuntu' }, billing: 'hourly', sshKeys: [], userData: null, tags: [], workerCount: 1, spot: false, accelerators: null };
const created = (resourceId: string, m: number, over: Record<string, unknown> = {}) => ({ projectId: 'p1', name: `nightly-${m}`, source: 'server', resourceId, serverSpec, createdAt: at(m), ...over });

describe('backups read model: a machine\'s backups', () => {
  it('keeps a backup available with the machine as it was, and archives it on delete or restore', async () => {
    const log = logRecorder();
    const model = await projected(backupsProjection);
    const b1 = log.stream('backup-b1', { backupId: 'b1' });
    const b2 = log.stream('backup-b2', { backupId: 'b2' });
    await model.handle(b1('compute.BackupCreated.v1', created('s1', 0)), b2('compute.BackupCreated.v1', created('s1', 1)));
    expect(await model.get('b1')).toEqual({ id: 'b1', _position: 1, projectId: 'p1', name: 'nightly-0', source: 'server', resourceId: 's1', status: 'available', archivedReason: null, restoredServerId: null, serverSpec, createdAt: at(0), updatedAt: at(0), archivedAt: null });

    await model.handle(b1('compute.BackupArchived.v1', { reason: 'restored', restoredServerId: 's9', at: at(5) }), b2('compute.BackupArchived.v1', { reason: 'deleted', restoredServerId: null, at: at(6) }));
    expect(await model.get('b1')).toMatchObject({ status: 'archived', archivedReason: 'restored', restoredServerId: 's9', archivedAt: at(5), updatedAt: at(5), serverSpec });
    expect(await model.get('b2')).toMatchObject({ status: 'archived', archivedReason: 'deleted', restoredServerId: null, archivedAt: at(6) });
  });

  it('lists one machine\'s available backups, a server\'s apart from an instance\'s', async () => {
    const log = logRecorder();
    const model = await projected(backupsProjection);
    const s = (id: string) => log.stream(`backup-${id}`, { backupId: id });
    await model.handle(
      s('a')('compute.BackupCreated.v1', created('s1', 0)),
      s('b')('compute.BackupCreated.v1', created('s1', 1)),
      s('c')('compute.BackupCreated.v1', created('i1', 2, { source: 'instance' })),
      s('d')('compute.BackupCreated.v1', created('s2', 3)),
      s('a')('compute.BackupArchived.v1', { reason: 'deleted', restoredServerId: null, at: at(4) }),
    );
    const ids = async (resourceId: string) => (await model.collection.find({ filter: { resourceId, status: 'available', projectId: 'p1' }, sort: [{ field: 'createdAt', direction: -1 }] })).items.map((d) => d.id);
    expect(await ids('s1')).toEqual(['b']);
    expect(await ids('i1')).toEqual(['c']);
  });

  it('creates no backup from the archiving of one it never saw, and archives none back to available on a replay', async () => {
    const log = logRecorder();
    const lost = log.stream('backup-lost', { backupId: 'lost' });
    const b = log.stream('backup-b1', { backupId: 'b1' });
    const events = [lost('compute.BackupArchived.v1', { reason: 'deleted', restoredServerId: null, at: at(1) }), b('compute.BackupCreated.v1', created('s1', 0)), b('compute.BackupArchived.v1', { reason: 'deleted', restoredServerId: null, at: at(2) })];
    const model = await projected(backupsProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect((await model.all()).map((d) => [d.id, d.status])).toEqual([['b1', 'archived']]);
  });
});
