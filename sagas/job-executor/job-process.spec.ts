import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { instanceStream } from '../../libs/domain/compute/instance.events';
import { jobStream } from '../../libs/domain/jobs/events';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { ProviderError } from '../../libs/providers/src/driver.port';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import { systemClock } from '../../libs/runtime/src/clock';
import type { RuntimeServices } from '../../libs/runtime/src/context-module';
import { DriverRegistry } from '../../libs/runtime/src/driver-registry';
import { ReadStoreCheckpointStore } from '../../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import { jobsProjection } from '../../projections/jobs/jobs.projection';
import { instanceSpec } from '../../test/support/fixtures';
import { eventually } from '../../test/support/wait';
import { instanceOperations } from '../instance-operations/instance-operations';
import { JobDispatcher } from './job-dispatcher';
import { jobExecutor, jobOperationHandlers } from './job-process';
import type { JobExecutor } from './job-executor';

/** A live provider that refuses every create for good: a live-mode job must reach it, a test-mode job never. */
class RefusingProvider extends SimulatorDriver {
  override async createInstance(): Promise<never> {
    throw new ProviderError('live provider refuses', false);
  }
}

/**
 * The job process as a runtime wires it (job-process.ts): the executor fed by the jobs projector's
 * change feed, running each job-backed resource's operations through the runtime's drivers, over a
 * real (embedded) event store and read store.
 */
describe('job process wiring', () => {
  let store: SqlEventStore;
  let projections: ProjectionEngine;
  let executor: JobExecutor;
  let rt: RuntimeServices;

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const reads = new MemoryReadStore();
    projections = new ProjectionEngine(store, reads, new ReadStoreCheckpointStore(reads), [jobsProjection]);
    const drivers = new DriverRegistry('zero');
    drivers.register('provider_publiccloud', new RefusingProvider('provider_publiccloud'));
    rt = { events: store, projections, drivers, clock: systemClock, logger: pino({ level: 'silent' }), config: { jobConcurrency: 2 }, jobResources: [instanceOperations], jobHandlers: {} } as unknown as RuntimeServices;
    rt = { ...rt, jobHandlers: jobOperationHandlers(rt) };
    // Wired before the projections start, as the runtime builds its timers first.
    executor = jobExecutor(rt);
    await projections.start();
    executor.start();
  });
  afterAll(async () => {
    await executor?.stop();
    await projections?.stop();
    await store?.close();
  });

  it('runs one job process per registered job-backed resource', () => {
    expect(Object.keys(rt.jobHandlers)).toEqual(['instance']);
  });

  /** Requests an instance in `projectId` and dispatches its create job, as the dispatcher's subscription does. */
  async function requestInstance(projectId: string): Promise<{ instanceId: string; jobId: string }> {
    const instanceId = randomUUID();
    const jobId = randomUUID();
    const from = await store.headPosition();
    await store.append(instanceStream(instanceId), [{ id: randomUUID(), type: 'compute.InstanceRequested.v1', data: { ...instanceSpec({ projectId }), instanceId, jobId, requestedAt: new Date().toISOString() }, metadata: { schemaVersion: 1, projectId, actor: 'test' } }], { expectedRevision: 'no_stream' });
    expect(await new JobDispatcher(store, rt.jobResources).handle(await store.readAll({ fromPosition: from, maxCount: 10 }))).toBe(true);
    return { instanceId, jobId };
  }
  const types = async (stream: string) => (await store.readStream(stream)).map((e) => e.type);

  it('runs a dispatched test-mode job on its own, through the simulator, to the resource\'s final event', async () => {
    const { instanceId, jobId } = await requestInstance('p1:test');
    await eventually(() => types(jobStream(jobId)), (t) => t.includes('jobs.JobCompleted.v1'), 20_000, 20);
    expect(await types(instanceStream(instanceId))).toEqual(['compute.InstanceRequested.v1', 'compute.InstanceProvisioningStarted.v1', 'compute.InstanceProvisioned.v1']);
  });

  it('runs a live-mode job through the live driver the runtime registered', async () => {
    const { instanceId, jobId } = await requestInstance('p1');
    const history = await eventually(() => store.readStream(jobStream(jobId)), (h) => h.some((e) => e.type === 'jobs.JobAttemptFailed.v1'), 20_000, 20);
    expect(history.find((e) => e.type === 'jobs.JobAttemptFailed.v1')?.data).toMatchObject({ attempt: 1, error: expect.stringContaining('live provider refuses') });
    expect(await types(instanceStream(instanceId))).not.toContain('compute.InstanceProvisioned.v1');
  });
});
