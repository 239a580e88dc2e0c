import type { Filter } from '../../libs/readstore/src/read-store.port';
import { serverSpec } from '../../test/support/fixtures';
import { logRecorder, projected } from '../../test/support/projector';
import { serversProjection } from './servers.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const spec = (projectId = 'p1') => serverSpec({ projectId });

describe('servers read model', () => {
  it('follows a server from its request through install, power cycle, migration and lock to its termination', async () => {
    const log = logRecorder();
    const s = log.stream('server-s1', { serverId: 's1' });
    const model = await projected(serversProjection);
    await model.handle(s('compute.ServerRequested.v1', { ...spec(), jobId: 'j1', requestedAt: at(0), restoredFromBackup: null }));
    expect(await model.get('s1')).toMatchObject({ id: 's1', mode: 'live', status: 'creating', jobId: 'j1', locked: false, externalId: null, ipv4: null, errorMessage: null, restoredFromBackup: null, createdAt: at(0), deletedAt: null, plan: { slug: 'small', name: 'Small' } });

    await model.handle(s('compute.ServerInstallStarted.v1', { jobId: 'j1', at: at(1) }));
    expect(await model.get('s1')).toMatchObject({ status: 'installing', updatedAt: at(1) });
    await model.handle(s('compute.ServerActivated.v1', { jobId: 'j1', operation: 'create', externalId: 'bm-1', ipv4: '10.0.0.5', at: at(2) }));
    expect(await model.get('s1')).toMatchObject({ status: 'active', externalId: 'bm-1', ipv4: '10.0.0.5' });

    await model.handle(s('compute.ServerPowerActionRequested.v1', { jobId: 'j2', action: 'power_off', from: 'active', to: 'stopping', requestedAt: at(3), requestedBy: 'u' }));
    expect(await model.get('s1')).toMatchObject({ status: 'stopping', jobId: 'j2', updatedAt: at(3) });
    await model.handle(s('compute.ServerPoweredOff.v1', { jobId: 'j2', at: at(4) }));
    expect(await model.get('s1')).toMatchObject({ status: 'stopped' });

    await model.handle(s('compute.ServerMigrationRequested.v1', { jobId: 'j3', from: 'stopped', fromPlan: { slug: 'small', name: 'Small' }, plan: { slug: 'large', name: 'Large' }, hourlyPriceCents: 300, requestedAt: at(5), requestedBy: 'u' }));
    expect(await model.get('s1')).toMatchObject({ status: 'migrating', plan: { slug: 'large', name: 'Large' } });
    // A completion without provisioning details keeps the address and external id it had.
    await model.handle(s('compute.ServerActivated.v1', { jobId: 'j3', operation: 'migrate', externalId: null, ipv4: null, at: at(6) }));
    expect(await model.get('s1')).toMatchObject({ status: 'active', externalId: 'bm-1', ipv4: '10.0.0.5' });

    await model.handle(s('compute.ServerLockChanged.v1', { locked: true, at: at(7) }), s('compute.ServerUpdated.v1', { label: 'primary', tags: [{ key: 'env', value: 'prod' }], at: at(8) }));
    expect(await model.get('s1')).toMatchObject({ locked: true, label: 'primary', tags: [{ key: 'env', value: 'prod' }], updatedAt: at(8) });
    await model.handle(s('compute.ServerUpdated.v1', { label: 'main', at: at(9) }));
    expect(await model.get('s1')).toMatchObject({ label: 'main', tags: [{ key: 'env', value: 'prod' }] });

    await model.handle(s('compute.ServerDeletionRequested.v1', { jobId: 'j4', from: 'active', requestedAt: at(10), requestedBy: 'u' }));
    expect(await model.get('s1')).toMatchObject({ status: 'deleting', deletedAt: null });
    await model.handle(s('compute.ServerTerminated.v1', { jobId: 'j4', at: at(11) }));
    expect(await model.get('s1')).toMatchObject({ status: 'terminated', deletedAt: at(11) });
  });

  it('records a failed operation\'s error and clears it when the job is retried', async () => {
    const log = logRecorder();
    const s = log.stream('server-s1', { serverId: 's1' });
    const model = await projected(serversProjection);
    await model.handle(s('compute.ServerRequested.v1', { ...spec(), jobId: 'j1', requestedAt: at(0), restoredFromBackup: 'b1' }), s('compute.ServerOperationFailed.v1', { jobId: 'j1', operation: 'create', error: 'no capacity', at: at(1) }));
    expect(await model.get('s1')).toMatchObject({ status: 'error', errorMessage: 'no capacity', restoredFromBackup: 'b1' });
    await model.handle(s('compute.ServerOperationRetried.v1', { jobId: 'j1', operation: 'create', status: 'creating', at: at(2) }));
    expect(await model.get('s1')).toMatchObject({ status: 'creating', errorMessage: null });
  });

  it('creates no server from events of one it never saw requested, and counts test-mode servers apart', async () => {
    const log = logRecorder();
    const model = await projected(serversProjection);
    await model.handle(
      log.stream('server-lost', { serverId: 'lost' })('compute.ServerActivated.v1', { jobId: 'j', operation: 'create', externalId: 'x', ipv4: null, at: at(1) }),
      log.stream('server-a', { serverId: 'a' })('compute.ServerRequested.v1', { ...spec(), jobId: 'j1', requestedAt: at(0), restoredFromBackup: null }),
      log.stream('server-b', { serverId: 'b' })('compute.ServerRequested.v1', { ...spec('p1:test'), jobId: 'j2', requestedAt: at(0), restoredFromBackup: null }),
    );
    expect(await model.get('lost')).toBeNull();
    const ids = async (filter: Filter) => (await model.collection.find({ filter })).items.map((d) => d.id);
    expect(await ids({ mode: 'live', status: 'creating' })).toEqual(['a']);
    expect(await ids({ mode: 'test', status: 'creating' })).toEqual(['b']);
    expect(await ids({ projectId: 'p1', status: 'creating' })).toEqual(['a']);
  });

  it('does not bring a terminated server back when the log hands its history again after a restart', async () => {
    const log = logRecorder();
    const s = log.stream('server-s1', { serverId: 's1' });
    const events = [s('compute.ServerRequested.v1', { ...spec(), jobId: 'j1', requestedAt: at(0), restoredFromBackup: null }), s('compute.ServerDeletionRequested.v1', { jobId: 'j2', from: 'creating', requestedAt: at(1), requestedBy: 'u' }), s('compute.ServerTerminated.v1', { jobId: 'j2', at: at(2) })];
    const model = await projected(serversProjection);
    await model.handle(...events);
    model.restart();
    expect(await model.handle(...events)).toBe(false);
    expect(await model.get('s1')).toMatchObject({ status: 'terminated', deletedAt: at(2) });
  });
});
