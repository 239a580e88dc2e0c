import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { PgliteSqlClient } from '../../libs/eventstore/src/sql/sql-client';
import { v7 as uuidv7 } from 'uuid';
import { handleCommand, toNewEvent, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import { ReadStoreCheckpointStore } from '../../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import type { ProviderKind } from '../../libs/providers/src/driver.port';
import { instanceDecider } from '../../libs/domain/compute/instance.decider';
import { instanceStream, type InstanceEvent } from '../../libs/domain/compute/instance.events';
import { serverDecider } from '../../libs/domain/servers/server.decider';
import { serverStream, type ServerSpecData } from '../../libs/domain/servers/server.events';
import { jobStream } from '../../libs/domain/jobs/events';
import { jobsProjection } from '../../projections/jobs/jobs.projection';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { serversProjection } from '../../projections/servers/servers.projection';
import { JobDispatcher } from '../job-executor/job-dispatcher';
import { instanceOperations } from '../instance-operations/instance-operations';
import { serverOperations } from '../server-operations/server-operations';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import { JobOperations } from './job-operations';
import { resetForRetry } from '../../usecases/jobs/reset-for-retry';
import { instanceSpec } from '../../test/support/fixtures';

const at = '2026-01-01T00:00:00.000Z';
const ctx: CommandContext = { metadata: { projectId: 'p1', actor: 'apikey:test' } };

/** The generic job process on the real event store (PGlite) and read store (memory), with the simulator as the provider. */
describe('job-backed resources: one job process for instances and servers', () => {
  let events: SqlEventStore;
  let engine: ProjectionEngine;
  let dispatcher: JobDispatcher;
  const drivers = new Map<string, SimulatorDriver>();
  const driverFor = (kind: string) => drivers.get(kind) ?? drivers.set(kind, SimulatorDriver.instant(kind as ProviderKind)).get(kind)!;
  const id = (_what: string) => uuidv7();

  beforeAll(async () => {
    events = await SqlEventStore.open(await PgliteSqlClient.open(), { schema: 'es_job_operations' });
    const reads = new MemoryReadStore();
    engine = new ProjectionEngine(events, reads, new ReadStoreCheckpointStore(reads), [jobsProjection, instancesProjection, serversProjection]);
    await engine.start();
    dispatcher = new JobDispatcher(events);
  });

  afterAll(async () => {
    await engine.stop();
    await events.close();
  });

  /** Dispatches the job the resource's last event requests and answers its document, as the executor finds it. */
  async function jobOf(stream: string) {
    const history = await events.readStream(stream);
    const last = history[history.length - 1];
    expect(await dispatcher.handle([last])).toBe(true);
    const jobId = (last.data as { jobId: string }).jobId;
    const head = await events.headPosition();
    expect(await engine.runner('jobs').waitFor(head, 10_000)).toBe(true);
    return (await (await engine.collection(jobsProjection)).get(jobId))!;
  }
  const typesOf = async (stream: string) => (await events.readStream(stream)).map((e) => e.type);
  const run = (resource: AnyJobBackedResource) => new JobOperations(events, resource, driverFor);

  async function requestInstance(tags: Array<{ key: string; value: string }> = []) {
    const instanceId = id('i');
    const spec = instanceSpec({ tags });
    const requested: InstanceEvent = { type: 'compute.InstanceRequested.v1', data: { ...spec, instanceId, jobId: id('j'), requestedAt: at } };
    await events.append(instanceStream(instanceId), [toNewEvent(requested, ctx)], { expectedRevision: 'no_stream' });
    return instanceId;
  }

  it('creates an instance: the job records its operation, the attempt takes it creating → provisioning → active', async () => {
    const instanceId = await requestInstance();
    const job = await jobOf(instanceStream(instanceId));
    expect(job).toMatchObject({ type: 'instance.create', resourceType: 'instance', resourceId: instanceId, operation: 'create', status: 'pending', payload: { plan: 'pc-t3-medium', hostname: 'web.us-east-1' } });
    const result = await run(instanceOperations).execute(job, 1, `${job.id}:r0:1`, ctx);
    expect(result).toEqual({ externalId: expect.stringMatching(/^sim-/), ipv4: expect.any(String) });
    expect(await typesOf(instanceStream(instanceId))).toEqual(['compute.InstanceRequested.v1', 'compute.InstanceProvisioningStarted.v1', 'compute.InstanceProvisioned.v1']);
    // The attempt re-run after a crash (same token) records nothing more.
    expect(await run(instanceOperations).execute(job, 1, `${job.id}:r0:1`, ctx)).toEqual({ skipped: 'superseded by a later operation' });
    expect(await typesOf(instanceStream(instanceId))).toHaveLength(3);
  });

  it('restarts an instance: stopping at the request, starting while the provider reboots it, active when done', async () => {
    const instanceId = await requestInstance();
    await run(instanceOperations).execute(await jobOf(instanceStream(instanceId)), 1, 't1', ctx);
    await handleCommand(events, instanceStream(instanceId), instanceDecider, { type: 'RequestInstanceAction', jobId: id('j'), action: 'restart', now: at, requestedBy: 'u' }, ctx);
    const job = await jobOf(instanceStream(instanceId));
    expect(job).toMatchObject({ type: 'instance.action', operation: 'restart', payload: { action: 'restart', from: 'active' } });
    expect(await run(instanceOperations).execute(job, 1, 't2', ctx)).toEqual({ operation: 'restart' });
    const steps = (await events.readStream(instanceStream(instanceId))).slice(3).map((e) => [e.type, (e.data as { to?: string }).to ?? null]);
    expect(steps).toEqual([
      ['compute.InstanceActionRequested.v1', 'stopping'],
      ['compute.InstanceRebooting.v1', null],
      ['compute.InstanceStarted.v1', null],
    ]);
  });

  it('records a failure for good as error, and a manual retry resets the instance to where its operation starts', async () => {
    const instanceId = await requestInstance([{ key: 'simulate', value: 'fail:always' }]);
    const job = await jobOf(instanceStream(instanceId));
    await expect(run(instanceOperations).execute(job, 1, `${job.id}:r0:1`, ctx)).rejects.toThrow(/Simulated failure/);
    await run(instanceOperations).onFailed(job, 'provider down', ctx);
    await run(instanceOperations).onFailed(job, 'provider down', ctx);
    const failed = (await events.readStream(instanceStream(instanceId))).slice(2);
    expect(failed.map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'compute.InstanceOperationFailed.v1', data: { instanceId, jobId: job.id, operation: 'create', error: 'provider down', at: expect.any(String) } },
    ]);
    expect(await resetForRetry(events, instanceOperations, job, at, ctx)).toEqual(expect.any(Number));
    expect(await resetForRetry(events, instanceOperations, job, at, ctx)).toBeNull();
    const last = (await events.readStream(instanceStream(instanceId))).at(-1)!;
    expect({ type: last.type, data: last.data }).toEqual({ type: 'compute.InstanceOperationRetried.v1', data: { instanceId, jobId: job.id, operation: 'create', status: 'creating', at } });
    const state = (await events.readStream(instanceStream(instanceId))).reduce((s, e) => instanceDecider.evolve(s, e as unknown as InstanceEvent), instanceDecider.initialState());
    expect(state.status).toBe('creating');
  });

  it('runs a server through the same process: create, reboot (active → restarted → active), delete', async () => {
    const serverId = id('s');
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
    };
    await handleCommand(events, serverStream(serverId), serverDecider, { type: 'RestoreServer', serverId, jobId: id('j'), spec, backupId: 'b1', now: at }, ctx);
    const create = await jobOf(serverStream(serverId));
    expect(create).toMatchObject({ type: 'server.create', resourceType: 'server', operation: 'create', payload: { plan: 'c3-medium-x86', site: 'NYC', role: 'BareMetal' } });
    await run(serverOperations).execute(create, 1, 't1', ctx);
    await handleCommand(events, serverStream(serverId), serverDecider, { type: 'RequestServerPowerAction', jobId: id('j'), action: 'reboot', now: at, requestedBy: 'u' }, ctx);
    const reboot = await jobOf(serverStream(serverId));
    expect(reboot).toMatchObject({ type: 'server.action', operation: 'reboot' });
    await run(serverOperations).execute(reboot, 1, 't2', ctx);
    await handleCommand(events, serverStream(serverId), serverDecider, { type: 'RequestServerDeletion', jobId: id('j'), now: at, requestedBy: 'u' }, ctx);
    await run(serverOperations).execute(await jobOf(serverStream(serverId)), 1, 't3', ctx);
    expect(await typesOf(serverStream(serverId))).toEqual([
      'compute.ServerRequested.v1',
      'compute.ServerInstallStarted.v1',
      'compute.ServerActivated.v1',
      'compute.ServerPowerActionRequested.v1',
      'compute.ServerActivated.v1',
      'compute.ServerDeletionRequested.v1',
      'compute.ServerTerminated.v1',
    ]);
    const head = await events.headPosition();
    await engine.runner('servers').waitFor(head, 10_000);
    expect(await (await engine.collection(serversProjection)).get(serverId)).toMatchObject({ status: 'terminated', jobId: expect.any(String), errorMessage: null });
    // The job streams hold exactly one enqueue each: a replayed dispatch does not enqueue twice.
    await dispatcher.handle(await events.readStream(serverStream(serverId)));
    expect((await events.readStream(jobStream(create.id))).map((e) => e.type)).toEqual(['jobs.JobEnqueued.v1']);
  });

  it('skips a job the resource no longer waits for (superseded by a later operation)', async () => {
    const instanceId = await requestInstance();
    const create = await jobOf(instanceStream(instanceId));
    await handleCommand(events, instanceStream(instanceId), instanceDecider, { type: 'RequestInstanceAction', jobId: id('j'), action: 'terminate', viaDelete: true, now: at, requestedBy: 'u' }, ctx);
    expect(await run(instanceOperations).execute(create, 1, 't1', ctx)).toEqual({ skipped: 'superseded by a later operation' });
    expect(await typesOf(instanceStream(instanceId))).toEqual(['compute.InstanceRequested.v1', 'compute.InstanceActionRequested.v1']);
  });
});
