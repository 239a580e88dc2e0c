import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { jobStream, type JobEnqueued } from '../../libs/domain/jobs/events';
import { jobDecider } from '../../libs/domain/jobs/job.decider';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import { ReadStoreCheckpointStore } from '../../libs/subscriptions/src/checkpoint-store';
import { DocumentProjector } from '../../libs/subscriptions/src/document-projection';
import { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import { jobsProjection, type JobDoc } from '../../projections/jobs/jobs.projection';
import { ManualClock, type Clock } from '../../libs/runtime/src/clock';
import { eventually } from '../../test/support/wait';
import type { JobOperationHandler } from '../../libs/runtime/src/job-ports';
import { JobExecutor } from './job-executor';

/**
 * The job process manager over a real (embedded, in-memory) event store and the jobs read model it
 * takes its timers from, projected as in the application. Outcomes are the events appended.
 */
describe('JobExecutor', () => {
  let store: SqlEventStore;
  let projections: ProjectionEngine;
  const running = new Set<JobExecutor>();
  const ctx: CommandContext = { metadata: { projectId: 'p1', actor: 'test' } };

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const reads = new MemoryReadStore();
    projections = new ProjectionEngine(store, reads, new ReadStoreCheckpointStore(reads), [jobsProjection]);
    await projections.start();
    // The projector's change feed and wake-ups, wired as the application wires them.
    projections.onRunner('jobs', (runner) => {
      (runner.handler as DocumentProjector<JobDoc>).onWritten((changes) => running.forEach((x) => x.observe(changes)));
      runner.onProgress(() => running.forEach((x) => x.poke()));
    });
  });
  afterEach(async () => {
    await Promise.all([...running].map((x) => x.stop()));
    running.clear();
  });
  afterAll(async () => {
    await projections?.stop();
    await store?.close();
  });

  /**
   * A resource operation that records on the resource's own stream what it did, failing its first
   * `failures` attempts (or every one) the way a provider would.
   */
  class Operation implements JobOperationHandler {
    constructor(public failures: number | 'always' = 0) {}
    async execute(job: JobDoc, attempt: number, token: string, c: CommandContext): Promise<Record<string, unknown>> {
      if (this.failures === 'always' || attempt <= this.failures) throw new Error(`provider unavailable (attempt ${attempt})`);
      await store.append(`thing-${job.resourceId}`, [{ id: randomUUID(), type: 'test.ThingChanged.v1', data: { jobId: job.id, attempt, token }, metadata: { ...c.metadata, schemaVersion: 1 } }], { expectedRevision: 'any' });
      return { token };
    }
    async onFailed(job: JobDoc, error: string, c: CommandContext): Promise<void> {
      await store.append(`thing-${job.resourceId}`, [{ id: randomUUID(), type: 'test.ThingFailed.v1', data: { jobId: job.id, error }, metadata: { ...c.metadata, schemaVersion: 1 } }], { expectedRevision: 'any' });
    }
  }

  function startExecutor(handlers: Record<string, JobOperationHandler>, ready?: () => Promise<void>, options: { clock?: Clock; pollIntervalMs?: number } = {}): JobExecutor {
    const executor = new JobExecutor(store, () => projections.collection(jobsProjection), handlers, pino({ level: 'silent' }), { pollIntervalMs: 200, ready, ...options });
    running.add(executor);
    executor.start();
    return executor;
  }

  async function enqueue(resourceType = 'thing', enqueuedAt = new Date()): Promise<{ jobId: string; resourceId: string }> {
    const [jobId, resourceId] = [randomUUID(), randomUUID()];
    const job: JobEnqueued['data'] = { jobId, projectId: 'p1', type: 'instance.action', resourceType: resourceType as 'instance', resourceId, operation: 'start', payload: {}, maxAttempts: 3, enqueuedAt: enqueuedAt.toISOString() };
    await handleCommand(store, jobStream(jobId), jobDecider, { type: 'EnqueueJob', job }, ctx);
    return { jobId, resourceId };
  }

  const history = (stream: string) => store.readStream(stream);
  const types = (events: RecordedEvent[]) => events.map((e) => e.type);
  const ended = (events: RecordedEvent[]) => ['jobs.JobCompleted.v1', 'jobs.JobFailed.v1'].includes(events[events.length - 1]?.type);
  const settled = (jobId: string) => eventually(() => history(jobStream(jobId)), ended);

  it('runs a due job once and records its result, the attempt token included', async () => {
    startExecutor({ thing: new Operation() });
    const { jobId, resourceId } = await enqueue();

    const job = await settled(jobId);

    expect(types(job)).toEqual(['jobs.JobEnqueued.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
    expect(job[1].data).toMatchObject({ attempt: 1 });
    expect(job[2].data).toMatchObject({ attempt: 1, result: { token: `${jobId}:r0:1` } });
    expect(job[2].metadata).toMatchObject({ actor: 'system:job-executor', correlationId: jobId, projectId: 'p1' });
    const thing = await history(`thing-${resourceId}`);
    expect(thing.map((e) => e.data)).toEqual([{ jobId, attempt: 1, token: `${jobId}:r0:1` }]);
  });

  it('retries a failed attempt once its retry falls due, and completes on the third', async () => {
    startExecutor({ thing: new Operation(2) });
    const { jobId, resourceId } = await enqueue();

    const job = await settled(jobId);

    expect(types(job)).toEqual([
      'jobs.JobEnqueued.v1',
      'jobs.JobAttemptStarted.v1',
      'jobs.JobAttemptFailed.v1',
      'jobs.JobAttemptStarted.v1',
      'jobs.JobAttemptFailed.v1',
      'jobs.JobAttemptStarted.v1',
      'jobs.JobCompleted.v1',
    ]);
    const [failed1, started2, failed2, started3] = [job[2].data, job[3].data, job[4].data, job[5].data] as Array<Record<string, string>>;
    expect(failed1).toMatchObject({ attempt: 1, error: 'provider unavailable (attempt 1)' });
    // Each next attempt started no earlier than the retry time its failure recorded.
    expect(Date.parse(started2.startedAt)).toBeGreaterThanOrEqual(Date.parse(failed1.retryAt));
    expect(Date.parse(started3.startedAt)).toBeGreaterThanOrEqual(Date.parse(failed2.retryAt));
    expect(job[6].data).toMatchObject({ attempt: 3, result: { token: `${jobId}:r0:3` } });
    expect((await history(`thing-${resourceId}`)).map((e) => e.type)).toEqual(['test.ThingChanged.v1']);
  });

  it('starts what a clock jump made due at once, not when real time gets there: a job due in an hour, then its retry', async () => {
    const clock = new ManualClock();
    // No idle poll within the test: only the clock's jump can wake the executor in time.
    startExecutor({ thing: new Operation(1) }, undefined, { clock, pollIntervalMs: 600_000 });
    // Due an hour from now: the executor's timer for it would fire in an hour of real time.
    const { jobId } = await enqueue('thing', new Date(clock.now() + 3_600_000));
    // The job is in the executor's view (the jobs model holds it) before the clock moves.
    await eventually(() => projections.collection(jobsProjection).then((c) => c.get(jobId)), (doc) => doc?.status === 'pending');

    clock.advance(3_600_000);
    const failed = await eventually(() => history(jobStream(jobId)), (events) => events.some((e) => e.type === 'jobs.JobAttemptFailed.v1'));
    const { failedAt, retryAt } = failed.find((e) => e.type === 'jobs.JobAttemptFailed.v1')!.data as Record<string, string>;
    clock.advance(Date.parse(retryAt) - Date.parse(failedAt));
    const job = await settled(jobId);

    expect(types(job)).toEqual(['jobs.JobEnqueued.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobAttemptFailed.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
    const [enqueued, started1, , started2] = job.map((e) => e.data as Record<string, string>);
    // Each attempt started on the clock no earlier than it was due.
    expect(Date.parse(started1.startedAt)).toBeGreaterThanOrEqual(Date.parse(enqueued.enqueuedAt));
    expect(Date.parse(started2.startedAt)).toBeGreaterThanOrEqual(Date.parse(retryAt));
  });

  it('fails a job after its last attempt, tells its resource once, and a manual retry runs a fresh budget', async () => {
    const operation = new Operation('always');
    startExecutor({ thing: operation });
    const { jobId, resourceId } = await enqueue();

    const failed = await settled(jobId);

    expect(types(failed).filter((t) => t === 'jobs.JobAttemptStarted.v1')).toHaveLength(3);
    expect(failed[failed.length - 1]).toMatchObject({ type: 'jobs.JobFailed.v1', data: { attempts: 3, error: 'provider unavailable (attempt 3)' } });
    // The resource hears of the failure after the job records it (a second append): wait for it, then it is told once.
    const told = await eventually(() => history(`thing-${resourceId}`), (events) => events.length > 0);
    expect(told.map((e) => [e.type, e.data.error])).toEqual([['test.ThingFailed.v1', 'provider unavailable (attempt 3)']]);

    operation.failures = 0; // the provider recovers
    await handleCommand(store, jobStream(jobId), jobDecider, { type: 'RetryJob', now: new Date().toISOString() }, ctx);
    const retried = await eventually(() => history(jobStream(jobId)), (events) => events[events.length - 1].type === 'jobs.JobCompleted.v1');

    expect(types(retried).slice(failed.length)).toEqual(['jobs.JobRetried.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
    // The retry's first attempt has a token of its own: a provider does not take it for a repeat.
    expect(retried[retried.length - 1].data).toMatchObject({ attempt: 1, result: { token: `${jobId}:r1:1` } });
  });

  it('re-runs an attempt a crash cut off, with its own token, without starting another', async () => {
    const { jobId, resourceId } = await enqueue();
    // A previous executor started attempt 1 and died.
    await handleCommand(store, jobStream(jobId), jobDecider, { type: 'StartAttempt', attempt: 1, now: new Date().toISOString() }, ctx);
    const head = await store.headPosition();

    startExecutor({ thing: new Operation() }, async () => {
      await projections.runner('jobs').waitFor(head, 20_000);
    });
    const job = await settled(jobId);

    expect(types(job)).toEqual(['jobs.JobEnqueued.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
    expect(job[2].data).toMatchObject({ attempt: 1, result: { token: `${jobId}:r0:1` } });
    expect(await history(`thing-${resourceId}`)).toHaveLength(1);
  });

  it('runs again, without a restart, an attempt whose outcome the store could not take (an outage), with its own token', async () => {
    const { jobId, resourceId } = await enqueue();
    // The store is unreachable when the attempt's outcome is recorded (the connection resets), once.
    let refusals = 1;
    const outage = new Proxy(store, {
      get(target, prop) {
        if (prop === 'append')
          return (stream: string, events: Array<{ type: string }>, options: never) => {
            if (refusals > 0 && stream === jobStream(jobId) && events.some((e) => e.type === 'jobs.JobCompleted.v1')) {
              refusals--;
              return Promise.reject(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
            }
            return target.append(stream, events as never, options);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const executor = new JobExecutor(outage, () => projections.collection(jobsProjection), { thing: new Operation() }, pino({ level: 'silent' }), { pollIntervalMs: 200 });
    running.add(executor);
    executor.start();

    const job = await settled(jobId);

    expect(refusals).toBe(0);
    expect(types(job)).toEqual(['jobs.JobEnqueued.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
    expect(job[2].data).toMatchObject({ attempt: 1, result: { token: `${jobId}:r0:1` } });
    // The operation ran twice with the same token (a driver call keyed by it is not repeated).
    expect((await history(`thing-${resourceId}`)).map((e) => e.data.token)).toEqual([`${jobId}:r0:1`, `${jobId}:r0:1`]);
  });

  it('runs each attempt in one executor only, when several share the log', async () => {
    startExecutor({ thing: new Operation() });
    startExecutor({ thing: new Operation() });
    const jobs = await Promise.all(Array.from({ length: 6 }, () => enqueue()));

    for (const { jobId, resourceId } of jobs) {
      const job = await settled(jobId);
      expect(types(job)).toEqual(['jobs.JobEnqueued.v1', 'jobs.JobAttemptStarted.v1', 'jobs.JobCompleted.v1']);
      expect(await history(`thing-${resourceId}`)).toHaveLength(1);
    }
  });

  it('fails the attempts of a job no handler takes', async () => {
    startExecutor({ thing: new Operation() });
    const { jobId } = await enqueue('gadget');

    const job = await settled(jobId);

    expect(job[job.length - 1]).toMatchObject({ type: 'jobs.JobFailed.v1', data: { attempts: 3, error: 'No handler for gadget jobs' } });
  });
});
