import { deciderSpec } from '../shared/decider-spec';
import type { CatalogOs, CatalogPlan, CatalogRegion } from '../catalog/catalog.types';
import { serverDecider, type RequestServer, type ServerCommand, type UpdateServer } from './server.decider';
import type { ServerEvent, ServerOperation, ServerSpecData, ServerStatus } from './server.events';

const given = deciderSpec(serverDecider);
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
  region: 'ny5',
  plan: { slug: 'c3-medium-x86', name: 'c3.medium.x86' },
  operatingSystem: { slug: 'debian_12', name: 'Debian 12' },
  billing: 'hourly',
  sshKeys: [],
  userData: null,
  tags: [],
  workerCount: 1,
  spot: false,
  accelerators: null,
  hourlyPriceCents: 150,
};
const price = { hourlyCents: 150, monthlyCents: 100_000 } as unknown as CatalogPlan['pricing']['USD'];
const plan = (slug: string, over: Partial<CatalogPlan & { providerKind: string }> = {}): CatalogPlan & { providerKind: string } => ({
  id: slug,
  slug,
  name: slug.replace(/-/g, '.'),
  category: 'bare-metal',
  tier: 'core-optimized',
  cpuCores: 8,
  cpuType: 'x86',
  memoryGb: 32,
  diskGb: 480,
  diskType: 'ssd',
  gpuCount: 0,
  gpuType: null,
  bandwidthTb: 10,
  pricing: { USD: price, NGN: price },
  regions: ['ny5'],
  providerKind: 'provider_baremetal',
  ...over,
}) as CatalogPlan & { providerKind: string };
const region: CatalogRegion & { providerKind: string } = { id: 'ny5', slug: 'ny5', name: 'New York', city: 'New York', country: 'US', site: 'NYC', macroregion: 'us', zones: [], providerKind: 'provider_baremetal' };
const os: CatalogOs = { id: 'debian_12', slug: 'debian_12', name: 'Debian 12', version: '12', family: 'debian', categories: ['bare-metal'] };
const create = (over: Partial<RequestServer['catalog']> = {}, request: Partial<RequestServer['request']> = {}): ServerCommand => ({
  type: 'RequestServer',
  serverId: 's1',
  jobId: 'j1',
  projectId: 'p1',
  request: { name: 'db', hostname: 'db.example.com', billing: 'hourly', ...request },
  catalog: { plan: plan('c3-medium-x86', { name: 'c3.medium.x86' }), provider: null, region, os, ...over },
  now: at,
});

const requested: ServerEvent = { type: 'compute.ServerRequested.v1', data: { ...spec, serverId: 's1', jobId: 'j1', requestedAt: at, restoredFromBackup: null } };
const step = { serverId: 's1', at };
const installing: ServerEvent = { type: 'compute.ServerInstallStarted.v1', data: { ...step, jobId: 'j1' } };
const activated: ServerEvent = { type: 'compute.ServerActivated.v1', data: { ...step, jobId: 'j1', operation: 'create', externalId: 'x1', ipv4: '10.0.0.1' } };
const locked: ServerEvent = { type: 'compute.ServerLockChanged.v1', data: { serverId: 's1', locked: true, at } };
const power = (jobId: string, action: 'power_on' | 'power_off' | 'reboot', from: ServerStatus, to: ServerStatus): ServerEvent => ({
  type: 'compute.ServerPowerActionRequested.v1',
  data: { serverId: 's1', jobId, action, from, to, requestedAt: at, requestedBy: 'u' },
});
const migration = (jobId: string, from: ServerStatus = 'active'): ServerEvent => ({
  type: 'compute.ServerMigrationRequested.v1',
  data: { serverId: 's1', jobId, from, fromPlan: spec.plan, plan: { slug: 'm3-large-x86', name: 'm3.large.x86' }, hourlyPriceCents: 150, requestedAt: at, requestedBy: 'u' },
});
const deletion = (jobId: string, from: ServerStatus = 'active'): ServerEvent => ({ type: 'compute.ServerDeletionRequested.v1', data: { serverId: 's1', jobId, from, requestedAt: at, requestedBy: 'u' } });
const failed = (jobId: string, operation: ServerOperation): ServerEvent => ({ type: 'compute.ServerOperationFailed.v1', data: { ...step, jobId, operation, error: 'boom' } });
const retried = (jobId: string, operation: ServerOperation, status: ServerStatus): ServerEvent => ({ type: 'compute.ServerOperationRetried.v1', data: { ...step, jobId, operation, status } });

const act = (jobId: string, action: 'power_on' | 'power_off' | 'reboot'): ServerCommand => ({ type: 'RequestServerPowerAction', jobId, action, now: at, requestedBy: 'u' });
const update = (u: Partial<UpdateServer>): ServerCommand => ({ type: 'UpdateServer', jobId: 'j2', now: at, requestedBy: 'u', ...u });
const begin = (jobId: string): ServerCommand => ({ type: 'BeginOperation', jobId, now: at });
const complete = (jobId: string, result?: { externalId: string; ipv4: string }): ServerCommand => ({ type: 'CompleteOperation', jobId, now: at, result });
const fail = (jobId: string): ServerCommand => ({ type: 'FailOperation', jobId, error: 'boom', now: at });
const retry = (jobId: string): ServerCommand => ({ type: 'RetryOperation', jobId, now: at });

describe('server decider', () => {
  describe('RequestServer', () => {
    it('records the server from the request and the catalog entries the handler looked up', () => {
      given([]).when(create()).then([requested]);
    });

    it('a VM plan makes a VirtualMachine at the named provider', () => {
      const vm = plan('pc-t3-medium', { category: 'virtual-machine', providerKind: 'provider_publiccloud', regions: ['us-east-1'] });
      const east = { ...region, slug: 'us-east-1', site: 'us-east-1', providerKind: 'provider_publiccloud' };
      const [e] = serverDecider.decide(create({ plan: vm, region: east, provider: { id: 'prov1', kind: 'provider_publiccloud' } }), serverDecider.initialState());
      expect(e.data).toMatchObject({ role: 'VirtualMachine', providerId: 'prov1', providerKind: 'provider_publiccloud', region: 'us-east-1' });
    });

    it('refuses a plan that does not fit the role, the provider or the site (422 INVALID_PLAN)', () => {
      given([]).when(create({}, { role: 'VirtualMachine' })).thenThrows('INVALID_PLAN', /is a BareMetal plan/);
      given([]).when(create({ provider: { id: 'prov1', kind: 'provider_publiccloud' } })).thenThrows('INVALID_PLAN', /not offered by provider/);
      given([]).when(create({ region: { ...region, slug: 'sv15', site: 'SV' } })).thenThrows('INVALID_PLAN', /not available at site SV/);
    });

    it('refuses an id that exists', () => {
      given([requested]).when(create()).thenThrows('CONFLICT');
    });

    it('restores a backup as a new server that names it', () => {
      given([])
        .when({ type: 'RestoreServer', serverId: 's1', jobId: 'j1', spec, backupId: 'b1', now: at })
        .then([{ type: 'compute.ServerRequested.v1', data: { ...spec, serverId: 's1', jobId: 'j1', requestedAt: at, restoredFromBackup: 'b1' } }]);
    });
  });

  it('answers NOT_FOUND for a server that does not exist', () => {
    for (const c of [act('j2', 'reboot'), update({ label: 'x' }), retry('j1'), { type: 'RequestServerDeletion', jobId: 'j2', now: at, requestedBy: 'u' } as ServerCommand]) given([]).when(c).thenThrows('NOT_FOUND');
  });

  describe('create job: creating → installing → active', () => {
    it('begins installing once, for the current job only', () => {
      given([requested]).when(begin('j1')).then([installing]);
      given([requested, installing]).when(begin('j1')).thenNothingHappens();
      given([requested]).when(begin('other')).thenNothingHappens();
    });

    it('activates with the provider ids, once', () => {
      given([requested, installing]).when(complete('j1', { externalId: 'x1', ipv4: '10.0.0.1' })).then([activated]);
      given([requested, installing, activated]).when(complete('j1', { externalId: 'x1', ipv4: '10.0.0.1' })).thenNothingHappens();
    });
  });

  describe('power actions (DECISIONS 8)', () => {
    it('power_off: active → stopping → stopped', () => {
      given([requested, activated]).when(act('j2', 'power_off')).then([power('j2', 'power_off', 'active', 'stopping')]);
      given([requested, activated, power('j2', 'power_off', 'active', 'stopping')]).when(begin('j2')).thenNothingHappens();
      given([requested, activated, power('j2', 'power_off', 'active', 'stopping')]).when(complete('j2')).then([{ type: 'compute.ServerPoweredOff.v1', data: { ...step, jobId: 'j2' } }]);
    });

    it('reboot: active → restarted → active; power_on: stopped → starting → active', () => {
      given([requested, activated]).when(act('j2', 'reboot')).then([power('j2', 'reboot', 'active', 'restarted')]);
      given([requested, activated, power('j2', 'reboot', 'active', 'restarted')])
        .when(complete('j2'))
        .then([{ type: 'compute.ServerActivated.v1', data: { ...step, jobId: 'j2', operation: 'reboot', externalId: null, ipv4: null } }]);
      const off: ServerEvent[] = [power('j2', 'power_off', 'active', 'stopping'), { type: 'compute.ServerPoweredOff.v1', data: { ...step, jobId: 'j2' } }];
      given([requested, activated, ...off]).when(act('j3', 'power_on')).then([power('j3', 'power_on', 'stopped', 'starting')]);
    });

    it('refuses the wrong status with INVALID_STATE, and ignores the same job requested twice', () => {
      given([requested, activated]).when(act('j2', 'power_on')).thenThrows('INVALID_STATE', /Cannot power_on a server in status active/);
      given([requested]).when(act('j2', 'reboot')).thenThrows('INVALID_STATE');
      given([requested, activated, power('j2', 'reboot', 'active', 'restarted')]).when(act('j2', 'reboot')).thenNothingHappens();
    });
  });

  it('a locked server refuses actions, deletion and changes other than the lock', () => {
    const history = [requested, activated, locked];
    given(history).when(act('j2', 'reboot')).thenThrows('INVALID_STATE', /locked/);
    given(history).when({ type: 'RequestServerDeletion', jobId: 'j2', now: at, requestedBy: 'u' }).thenThrows('INVALID_STATE', /locked/);
    given(history).when(update({ label: 'x', locked: false })).thenThrows('INVALID_STATE', /locked/);
    given(history).when(update({ locked: false })).then([{ type: 'compute.ServerLockChanged.v1', data: { serverId: 's1', locked: false, at } }]);
    given(history).when(update({ locked: true })).thenNothingHappens();
  });

  describe('UpdateServer', () => {
    it('a changed plan migrates (migrating → active); an unchanged one does nothing', () => {
      given([requested, activated]).when(update({ plan: plan('c3-medium-x86') })).thenNothingHappens();
      given([requested, activated]).when(update({ plan: plan('m3-large-x86') })).then([migration('j2')]);
      given([requested, activated, migration('j2')])
        .when(complete('j2'))
        .then([{ type: 'compute.ServerActivated.v1', data: { ...step, jobId: 'j2', operation: 'migrate', externalId: null, ipv4: null } }]);
    });

    it('refuses a plan of another provider or not at its site (422), or a migration in flight (409)', () => {
      given([requested, activated]).when(update({ plan: plan('m3-large-x86', { regions: ['sv15'] }) })).thenThrows('INVALID_PLAN', /not available at site NYC/);
      given([requested, activated]).when(update({ plan: plan('m3-large-x86', { providerKind: 'provider_publiccloud' }) })).thenThrows('INVALID_PLAN');
      given([requested]).when(update({ plan: plan('m3-large-x86') })).thenThrows('INVALID_STATE', /Cannot change the plan of a server in status creating/);
    });

    it('records label and tags', () => {
      given([requested, activated]).when(update({ label: 'primary', tags: [{ key: 'env', value: 'prod' }] })).then([{ type: 'compute.ServerUpdated.v1', data: { serverId: 's1', label: 'primary', tags: [{ key: 'env', value: 'prod' }], at } }]);
    });
  });

  it('deletion: deleting → terminated; a second deletion or an update is refused', () => {
    given([requested, activated]).when({ type: 'RequestServerDeletion', jobId: 'j9', now: at, requestedBy: 'u' }).then([deletion('j9')]);
    const gone = [requested, activated, deletion('j9'), { type: 'compute.ServerTerminated.v1', data: { ...step, jobId: 'j9' } } as ServerEvent];
    given([requested, activated, deletion('j9')]).when(complete('j9')).then([gone[3]]);
    given(gone).when({ type: 'RequestServerDeletion', jobId: 'j10', now: at, requestedBy: 'u' }).thenThrows('INVALID_STATE', /Cannot delete a server in status terminated/);
    given(gone).when(update({ label: 'x' })).thenThrows('INVALID_STATE');
  });

  describe('failure and manual retry (DECISIONS 7)', () => {
    it('a failed operation leaves error, once', () => {
      given([requested]).when(fail('j1')).then([failed('j1', 'create')]);
      given([requested, failed('j1', 'create')]).when(fail('j1')).thenNothingHappens();
      given([requested]).when(fail('other')).thenNothingHappens();
    });

    it('a retry puts the server back in the status its operation starts from, once', () => {
      given([requested, failed('j1', 'create')]).when(retry('j1')).then([retried('j1', 'create', 'creating')]);
      given([requested, failed('j1', 'create'), retried('j1', 'create', 'creating')]).when(retry('j1')).thenNothingHappens();
      given([requested, failed('j1', 'create'), retried('j1', 'create', 'creating')]).when(begin('j1')).then([installing]);
      const cases: Array<[ServerEvent, ServerOperation, ServerStatus]> = [
        [power('j2', 'power_off', 'active', 'stopping'), 'power_off', 'stopping'],
        [power('j2', 'reboot', 'active', 'restarted'), 'reboot', 'restarted'],
        [migration('j2'), 'migrate', 'migrating'],
        [deletion('j2'), 'delete', 'deleting'],
      ];
      for (const [request, op, start] of cases) given([requested, activated, request, failed('j2', op)]).when(retry('j2')).then([retried('j2', op, start)]);
    });

    it('a job begun again while still in error resets first', () => {
      given([requested, failed('j1', 'create')]).when(begin('j1')).then([retried('j1', 'create', 'creating'), installing]);
    });

    it('changes nothing for a superseded job or a server not in error', () => {
      given([requested, failed('j1', 'create'), deletion('j9', 'error')]).when(retry('j1')).thenNothingHappens();
      given([requested, failed('j1', 'create')]).when(retry('other')).thenNothingHappens();
      given([requested]).when(retry('j1')).thenNothingHappens();
    });

    it('a retried power_off can then complete', () => {
      const history = [requested, activated, power('j2', 'power_off', 'active', 'stopping'), failed('j2', 'power_off'), retried('j2', 'power_off', 'stopping')];
      given(history).when(complete('j2')).then([{ type: 'compute.ServerPoweredOff.v1', data: { ...step, jobId: 'j2' } }]);
    });
  });
});
