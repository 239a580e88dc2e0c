import { serverDecider, type ServerState } from '../../libs/domain/servers/server.decider';
import type { ServerEvent } from '../../libs/domain/servers/server.events';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import { serverSpec } from '../../test/support/fixtures';
import { logRecorder } from '../../test/support/projector';
import { serverOperations } from './server-operations';

const at = '2026-01-01T00:00:00.000Z';
const spec = serverSpec({ sshKeys: ['key-1'], userData: '#!/bin/sh\necho secret-ish', tags: [{ key: 'env', value: 'prod' }] });
const requested = { ...spec, serverId: 's1', jobId: 'j1', requestedAt: at, restoredFromBackup: null };
const stateOf = (...events: Array<{ type: string; data: Record<string, unknown> }>) => events.reduce<ServerState>((s, e) => serverDecider.evolve(s, e as ServerEvent), serverDecider.initialState());
type Live = Parameters<typeof serverOperations.target>[0];

describe('server operations: the jobs server events request, and their provider calls', () => {
  it('requests a create job with spec 2.4\'s payload, user data left on the server\'s stream', () => {
    const job = serverOperations.jobOf(logRecorder().stream('server-s1', {})('compute.ServerRequested.v1', requested, { projectId: 'p1' }));
    expect(job).toEqual({ jobId: 'j1', projectId: 'p1', type: 'server.create', resourceType: 'server', resourceId: 's1', operation: 'create', payload: { plan: 'small', operatingSystem: 'ubuntu_24_04', site: 'LOS1', region: 'af-west-1', hostname: 'db-1', sshKeys: ['key-1'], role: 'BareMetal' }, enqueuedAt: at });
    expect(JSON.stringify(job)).not.toContain('secret-ish');
  });

  it('requests a server.action job for a power action, a migration and a deletion, and none for lifecycle events', () => {
    const s = logRecorder().stream('server-s1', { serverId: 's1' });
    const base = { requestedAt: at, requestedBy: 'u' };
    const jobOf = (type: string, data: Record<string, unknown>) => serverOperations.jobOf(s(type, { ...base, ...data }, { projectId: 'p1' }));
    expect(jobOf('compute.ServerPowerActionRequested.v1', { jobId: 'j2', action: 'reboot', from: 'active', to: 'restarted' })).toEqual({ jobId: 'j2', projectId: 'p1', type: 'server.action', resourceType: 'server', resourceId: 's1', operation: 'reboot', payload: { action: 'reboot', from: 'active', requestedBy: 'u' }, enqueuedAt: at });
    expect(jobOf('compute.ServerMigrationRequested.v1', { jobId: 'j3', from: 'stopped', fromPlan: { slug: 'small', name: 'Small' }, plan: { slug: 'large', name: 'Large' } })).toMatchObject({ operation: 'migrate', payload: { action: 'migrate', from: 'stopped', plan: 'large', fromPlan: 'small' } });
    expect(jobOf('compute.ServerDeletionRequested.v1', { jobId: 'j4', from: 'active' })).toMatchObject({ operation: 'delete', payload: { action: 'delete', from: 'active' } });
    expect(jobOf('compute.ServerPoweredOff.v1', { jobId: 'j2', at })).toBeNull();
  });

  it('targets the machine by the server id until it has an external id, the plan after a migration included', () => {
    const created = { type: 'compute.ServerRequested.v1', data: requested };
    const before = serverOperations.target(stateOf(created) as Live);
    expect(before).toEqual({ providerKind: 'provider_baremetal', externalId: 's1', spec: { instanceId: 's1', name: 'db-1', region: 'af-west-1', instanceType: 'small', image: 'ubuntu_24_04', diskSizeGb: null, workerCount: 1, spot: false, sshKeys: ['key-1'], accelerators: null, ports: [], tags: { env: 'prod' } } });
    const migrated = stateOf(
      created,
      { type: 'compute.ServerActivated.v1', data: { serverId: 's1', jobId: 'j1', operation: 'create', externalId: 'bm-1', ipv4: '10.0.0.5', at } },
      { type: 'compute.ServerMigrationRequested.v1', data: { serverId: 's1', jobId: 'j2', from: 'active', fromPlan: spec.plan, plan: { slug: 'large', name: 'Large' }, requestedAt: at, requestedBy: 'u' } },
    );
    expect(serverOperations.target(migrated as Live)).toMatchObject({ externalId: 'bm-1', spec: { instanceType: 'large' } });
  });

  it('calls the provider: a create records its external id and address, power actions and delete change the machine\'s live status', async () => {
    const driver = SimulatorDriver.instant('provider_baremetal');
    const { spec: driverSpec } = serverOperations.target(stateOf({ type: 'compute.ServerRequested.v1', data: requested }) as Live);
    const created = await serverOperations.calls.create(driver, { token: 'j1:r0:1', externalId: 's1', spec: driverSpec });
    expect(created).toEqual({ externalId: driver.externalIdFor('s1'), ipv4: expect.any(String) });
    expect(serverOperations.jobResult(created as never)).toEqual(created);
    const target = { token: 't', externalId: driver.externalIdFor('s1'), spec: driverSpec };
    await serverOperations.calls.power_off(driver, target);
    expect(await driver.liveStatus(target.externalId)).toBe('stopped');
    await serverOperations.calls.power_on(driver, target);
    expect(await driver.liveStatus(target.externalId)).toBe('active');
    await serverOperations.calls.delete(driver, target);
    expect(await driver.liveStatus(target.externalId)).toBe('terminated');
  });
});
