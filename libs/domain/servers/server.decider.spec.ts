import { DomainError } from '../shared/domain-error';
import { serverDecider, type ServerCommand } from './server.decider';
import type { ServerEvent, ServerSpecData } from './server.events';
import { backupDecider } from './backup.decider';

const at = '2026-01-01T00:00:00.000Z';
const spec: ServerSpecData = {
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
};
const requested: ServerEvent = { type: 'compute.ServerRequested.v1', data: { ...spec, serverId: 's1', jobId: 'j1', requestedAt: at, restoredFromBackup: null } };
const activated: ServerEvent = { type: 'compute.ServerActivated.v1', data: { serverId: 's1', jobId: 'j1', at, operation: 'create', externalId: 'x1', ipv4: '10.0.0.1' } };
const locked: ServerEvent = { type: 'compute.ServerLockChanged.v1', data: { serverId: 's1', locked: true, at } };

/** Given events, when a command: the decided events (or the refusal). */
function given(events: ServerEvent[]) {
  const state = events.reduce(serverDecider.evolve, serverDecider.initialState());
  return { when: (command: ServerCommand) => serverDecider.decide(command, state), state };
}
const types = (events: ServerEvent[]) => events.map((e) => e.type);
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof DomainError ? err.code : 'other';
  }
  return 'none';
};

describe('server decider', () => {
  it('create: creating → installing → active, only for the current job', () => {
    expect(types(given([requested]).when({ type: 'BeginServerOperation', jobId: 'j1', now: at }))).toEqual(['compute.ServerInstallStarted.v1']);
    expect(given([requested]).when({ type: 'BeginServerOperation', jobId: 'other', now: at })).toEqual([]);
    const installing: ServerEvent = { type: 'compute.ServerInstallStarted.v1', data: { serverId: 's1', jobId: 'j1', at } };
    expect(given([requested, installing]).state.status).toBe('installing');
    expect(types(given([requested, installing]).when({ type: 'CompleteServerOperation', jobId: 'j1', now: at, provisioned: { externalId: 'x', ipv4: '1.2.3.4' } }))).toEqual(['compute.ServerActivated.v1']);
    expect(given([requested, activated]).state.status).toBe('active');
  });

  it('power actions move to their transitional status and refuse the wrong one', () => {
    const off = given([requested, activated]).when({ type: 'RequestServerPowerAction', jobId: 'j2', action: 'power_off', now: at, requestedBy: 'u' });
    expect(off[0]).toMatchObject({ type: 'compute.ServerPowerActionRequested.v1', data: { from: 'active', to: 'stopping' } });
    expect(given([requested, activated, ...off]).when({ type: 'CompleteServerOperation', jobId: 'j2', now: at })[0].type).toBe('compute.ServerPoweredOff.v1');
    expect(refusal(() => given([requested, activated]).when({ type: 'RequestServerPowerAction', jobId: 'j2', action: 'power_on', now: at, requestedBy: 'u' }))).toBe('INVALID_STATE');
    const reboot = given([requested, activated]).when({ type: 'RequestServerPowerAction', jobId: 'j3', action: 'reboot', now: at, requestedBy: 'u' });
    expect(reboot[0].data).toMatchObject({ to: 'restarted' });
  });

  it('a locked server refuses actions, deletion and changes other than the lock', () => {
    const g = given([requested, activated, locked]);
    expect(refusal(() => g.when({ type: 'RequestServerPowerAction', jobId: 'j2', action: 'reboot', now: at, requestedBy: 'u' }))).toBe('INVALID_STATE');
    expect(refusal(() => g.when({ type: 'RequestServerDeletion', jobId: 'j2', now: at, requestedBy: 'u' }))).toBe('INVALID_STATE');
    expect(refusal(() => g.when({ type: 'UpdateServer', jobId: 'j2', label: 'x', locked: false, now: at, requestedBy: 'u' }))).toBe('INVALID_STATE');
    expect(types(g.when({ type: 'UpdateServer', jobId: 'j2', locked: false, now: at, requestedBy: 'u' }))).toEqual(['compute.ServerLockChanged.v1']);
    expect(g.when({ type: 'UpdateServer', jobId: 'j2', locked: true, now: at, requestedBy: 'u' })).toEqual([]);
  });

  it('a changed plan migrates; an unchanged one does nothing', () => {
    const g = given([requested, activated]);
    expect(g.when({ type: 'UpdateServer', jobId: 'j2', plan: spec.plan, now: at, requestedBy: 'u' })).toEqual([]);
    const m = g.when({ type: 'UpdateServer', jobId: 'j2', plan: { slug: 'm3-large-x86', name: 'm3' }, now: at, requestedBy: 'u' });
    expect(types(m)).toEqual(['compute.ServerMigrationRequested.v1']);
    const migrating = given([requested, activated, ...m]);
    expect(migrating.state).toMatchObject({ status: 'migrating', spec: { plan: { slug: 'm3-large-x86' } } });
    expect(migrating.when({ type: 'CompleteServerOperation', jobId: 'j2', now: at })[0]).toMatchObject({ type: 'compute.ServerActivated.v1', data: { operation: 'migrate' } });
  });

  it('deletion ends in terminated; a second deletion is refused', () => {
    const d = given([requested, activated]).when({ type: 'RequestServerDeletion', jobId: 'j9', now: at, requestedBy: 'u' });
    const done = given([requested, activated, ...d]).when({ type: 'CompleteServerOperation', jobId: 'j9', now: at });
    const g = given([requested, activated, ...d, ...done]);
    expect(g.state.status).toBe('terminated');
    expect(refusal(() => g.when({ type: 'RequestServerDeletion', jobId: 'j10', now: at, requestedBy: 'u' }))).toBe('INVALID_STATE');
  });

  it('a failed operation leaves error; its job beginning again resets the start status', () => {
    const failed = given([requested]).when({ type: 'FailServerOperation', jobId: 'j1', error: 'boom', now: at });
    const g = given([requested, ...failed]);
    expect(g.state.status).toBe('error');
    expect(types(g.when({ type: 'BeginServerOperation', jobId: 'j1', now: at }))).toEqual(['compute.ServerOperationRetried.v1', 'compute.ServerInstallStarted.v1']);
  });

  it('a manual retry puts a failed server back in the status its operation starts from', () => {
    const failCreate = given([requested]).when({ type: 'FailServerOperation', jobId: 'j1', error: 'boom', now: at });
    const g = given([requested, ...failCreate]);
    const reset = g.when({ type: 'RetryServerOperation', jobId: 'j1', now: at });
    expect(reset).toEqual([{ type: 'compute.ServerOperationRetried.v1', data: { serverId: 's1', jobId: 'j1', operation: 'create', status: 'creating', at } }]);
    const after = given([requested, ...failCreate, ...reset]);
    expect(after.state).toMatchObject({ status: 'creating', currentJob: { jobId: 'j1', operation: 'create' } });
    // The executor then begins the job from there without a second reset.
    expect(types(after.when({ type: 'BeginServerOperation', jobId: 'j1', now: at }))).toEqual(['compute.ServerInstallStarted.v1']);
    // Repeated, or once the server has left `error`: nothing.
    expect(after.when({ type: 'RetryServerOperation', jobId: 'j1', now: at })).toEqual([]);

    // Every operation goes back to its own start status.
    const starts: Array<[ServerEvent[], string, string]> = [
      [given([requested, activated]).when({ type: 'RequestServerPowerAction', jobId: 'j2', action: 'power_off', now: at, requestedBy: 'u' }), 'j2', 'stopping'],
      [given([requested, activated]).when({ type: 'RequestServerPowerAction', jobId: 'j2', action: 'reboot', now: at, requestedBy: 'u' }), 'j2', 'restarted'],
      [given([requested, activated]).when({ type: 'UpdateServer', jobId: 'j2', plan: { slug: 'm3-large-x86', name: 'm3' }, now: at, requestedBy: 'u' }), 'j2', 'migrating'],
      [given([requested, activated]).when({ type: 'RequestServerDeletion', jobId: 'j2', now: at, requestedBy: 'u' }), 'j2', 'deleting'],
    ];
    for (const [requestedOp, jobId, start] of starts) {
      const history = [requested, activated, ...requestedOp];
      const failed = given(history).when({ type: 'FailServerOperation', jobId, error: 'boom', now: at });
      const r = given([...history, ...failed]).when({ type: 'RetryServerOperation', jobId, now: at });
      expect(r).toHaveLength(1);
      expect(r[0].data).toMatchObject({ status: start });
      expect(given([...history, ...failed, ...r]).state.status).toBe(start);
    }
    const powerOff = given([requested, activated]).when({ type: 'RequestServerPowerAction', jobId: 'j2', action: 'power_off', now: at, requestedBy: 'u' });
    const powerOffFailed = given([requested, activated, ...powerOff]).when({ type: 'FailServerOperation', jobId: 'j2', error: 'boom', now: at });
    const offAgain = given([requested, activated, ...powerOff, ...powerOffFailed]);
    const offReset = offAgain.when({ type: 'RetryServerOperation', jobId: 'j2', now: at });
    expect(given([requested, activated, ...powerOff, ...powerOffFailed, ...offReset]).when({ type: 'CompleteServerOperation', jobId: 'j2', now: at })[0].type).toBe('compute.ServerPoweredOff.v1');
  });

  it('a manual retry changes nothing for a job the server no longer waits for, or a server not in error', () => {
    const failCreate = given([requested]).when({ type: 'FailServerOperation', jobId: 'j1', error: 'boom', now: at });
    // A superseded job (a later operation took over): its retry leaves the server alone.
    expect(given([requested, ...failCreate]).when({ type: 'RetryServerOperation', jobId: 'other', now: at })).toEqual([]);
    const d = given([requested, ...failCreate]).when({ type: 'RequestServerDeletion', jobId: 'j9', now: at, requestedBy: 'u' });
    expect(given([requested, ...failCreate, ...d]).when({ type: 'RetryServerOperation', jobId: 'j1', now: at })).toEqual([]);
    // Not in error (e.g. the executor already began the retried job): nothing.
    expect(given([requested]).when({ type: 'RetryServerOperation', jobId: 'j1', now: at })).toEqual([]);
    expect(given([requested, activated]).when({ type: 'RetryServerOperation', jobId: 'j1', now: at })).toEqual([]);
    // A server that does not exist: the same refusal as the instance decider's.
    expect(refusal(() => given([]).when({ type: 'RetryServerOperation', jobId: 'j1', now: at }))).toBe('NOT_FOUND');
  });

  it('a backup archives once', () => {
    const backup = { backupId: 'b1', projectId: 'p1', name: 'n', source: 'server' as const, resourceId: 's1', serverSpec: spec, createdAt: at };
    const created = backupDecider.decide({ type: 'CreateBackup', backup }, backupDecider.initialState());
    const state = created.reduce(backupDecider.evolve, backupDecider.initialState());
    const archived = backupDecider.decide({ type: 'ArchiveBackup', reason: 'restored', restoredServerId: 's2', now: at }, state);
    expect(archived[0].data).toMatchObject({ reason: 'restored', restoredServerId: 's2' });
    const after = archived.reduce(backupDecider.evolve, state);
    expect(() => backupDecider.decide({ type: 'ArchiveBackup', reason: 'deleted', now: at }, after)).toThrow('Backup not found');
  });
});
