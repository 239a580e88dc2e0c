import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand } from '../../libs/eventstore/src/handle-command';
import { jobDecider, type EnqueueJob } from '../../libs/domain/jobs/job.decider';
import { jobStream } from '../../libs/domain/jobs/events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { JOB_BACKED_RESOURCES } from '../job-operations/job-backed-resources';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';

export { instanceCreatePayload } from '../instance-operations/instance-operations';

export const MAX_ATTEMPTS = 3;

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
    const work: Array<Promise<unknown>> = [];
    for (const e of batch) {
      const job = this.jobOf(e);
      if (!job) continue;
      const metadata = causedBy(e, { projectId: e.metadata.projectId, actor: 'system:job-dispatcher', requestId: e.metadata.requestId });
      work.push(this.enqueue({ ...job, maxAttempts: MAX_ATTEMPTS }, metadata));
    }
    await Promise.all(work);
    return work.length > 0;
  }

  private jobOf(e: RecordedEvent) {
    for (const r of this.resources) {
      const job = r.jobOf(e);
      if (job) return job;
    }
    return null;
  }

  private async enqueue(job: EnqueueJob['job'], metadata: Record<string, unknown>) {
    try {
      await handleCommand(this.events, jobStream(job.jobId), jobDecider, { type: 'EnqueueJob', job }, { metadata }, { newStream: true });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'CONFLICT') return; // enqueued before a crash: done
      throw err;
    }
  }
}
