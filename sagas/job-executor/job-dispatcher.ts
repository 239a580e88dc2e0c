import type { EventStore, NewEvent, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, type AnyStreamCommand, type FollowingCommand } from '../../libs/eventstore/src/handle-command';
import { jobDecider, type EnqueueJob } from '../../libs/domain/jobs/job.decider';
import { jobStream } from '../../libs/domain/jobs/events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { JOB_BACKED_RESOURCES } from '../job-operations/job-backed-resources';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';

export { instanceCreatePayload } from '../instance-operations/instance-operations';

export const MAX_ATTEMPTS = 3;

type RequestEvent = Pick<RecordedEvent, 'id' | 'type' | 'data' | 'metadata'>;

const jobRequestedBy = (resources: readonly AnyJobBackedResource[], e: RequestEvent) => {
  for (const r of resources) {
    const job = r.jobOf(e);
    if (job) return job;
  }
  return null;
};

/** The enqueue of the job `e` requests (null when it requests none), with the metadata the dispatcher gives it. */
function enqueueOf(resources: readonly AnyJobBackedResource[], e: RequestEvent): AnyStreamCommand | null {
  const job = jobRequestedBy(resources, e);
  if (!job) return null;
  const metadata = causedBy(e, { projectId: e.metadata.projectId, actor: 'system:job-dispatcher', requestId: e.metadata.requestId });
  const command: EnqueueJob = { type: 'EnqueueJob', job: { ...job, maxAttempts: MAX_ATTEMPTS } };
  return { streamId: jobStream(job.jobId), decider: jobDecider, command, newStream: true, context: { metadata } };
}

/**
 * The job a request's events call for, as the part of the request's own append that follows them
 * (handleCommands): the request and its job commit together, so the answer waits for no saga. The
 * dispatcher below still runs for every request event; it finds the job already there.
 */
export const withItsJob =
  (resources: readonly AnyJobBackedResource[] = Object.values(JOB_BACKED_RESOURCES)): FollowingCommand =>
  (earlier: NewEvent[]) => {
    for (let i = earlier.length - 1; i >= 0; i--) {
      const part = enqueueOf(resources, earlier[i]);
      if (part) return part;
    }
    return null;
  };

/**
 * Enqueue<Job>On<Resource requested>: the resource's event is the source of truth and carries the
 * job id; this checkpointed reaction creates the job stream, for every job-backed resource (each
 * names the job its events request). A crash between the two leaves nothing stuck: the
 * subscription replays and `no_stream` makes the enqueue happen exactly once.
 */
export class JobDispatcher implements SubscriptionHandler {
  readonly name = 'saga:job-dispatcher';
  readonly batchSize = 200;

  constructor(
    private readonly events: EventStore,
    private readonly resources: readonly AnyJobBackedResource[] = Object.values(JOB_BACKED_RESOURCES),
  ) {}

  /** Resolves false when the batch held nothing to dispatch (its checkpoint may then wait). */
  async handle(batch: RecordedEvent[]): Promise<boolean> {
    // Jobs enqueued in the batch itself (a request appended with its job, `withItsJob`): nothing to do.
    const enqueued = new Set(batch.filter((e) => e.type === 'jobs.JobEnqueued.v1').map((e) => e.streamId));
    const work: Array<Promise<unknown>> = [];
    for (const e of batch) {
      const part = enqueueOf(this.resources, e);
      if (!part || enqueued.has(part.streamId)) continue;
      work.push(this.enqueue(part));
    }
    await Promise.all(work);
    return work.length > 0;
  }

  private async enqueue(part: AnyStreamCommand) {
    try {
      await handleCommand(this.events, part.streamId, part.decider, part.command, part.context!, { newStream: true });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'CONFLICT') return; // enqueued before a crash: done
      throw err;
    }
  }
}
