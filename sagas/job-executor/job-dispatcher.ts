import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type AnyStreamCommand } from '../../libs/eventstore/src/handle-command';
import { enqueueOf, MAX_ATTEMPTS, withItsJob } from '../../usecases/jobs/with-its-job';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { JOB_BACKED_RESOURCES } from '../job-operations/job-backed-resources';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';

export { instanceCreatePayload } from '../instance-operations/instance-operations';
export { MAX_ATTEMPTS, withItsJob };

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
