import type { EventStore, NewEvent, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommands, type AnyStreamCommand, type CommandContext, type CommandResult, type FollowingCommand } from '../../libs/eventstore/src/handle-command';
import { jobDecider, type EnqueueJob } from '../../libs/domain/jobs/job.decider';
import { jobStream } from '../../libs/domain/jobs/events';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';

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
export function enqueueOf(resources: readonly AnyJobBackedResource[], e: RequestEvent): AnyStreamCommand | null {
  const job = jobRequestedBy(resources, e);
  if (!job) return null;
  const metadata = causedBy(e, { projectId: e.metadata.projectId, actor: 'system:job-dispatcher', requestId: e.metadata.requestId });
  const command: EnqueueJob = { type: 'EnqueueJob', job: { ...job, maxAttempts: MAX_ATTEMPTS } };
  return { streamId: jobStream(job.jobId), decider: jobDecider, command, newStream: true, context: { metadata } };
}

/**
 * The job a request's events call for, as the part of the request's own append that follows them
 * (handleCommands): the request and its job commit together, so the answer waits for no saga. The
 * dispatcher (sagas/job-executor) still runs for every request event; it finds the job already there.
 */
export const withItsJob =
  (resources: readonly AnyJobBackedResource[]): FollowingCommand =>
  (earlier: NewEvent[]) => {
    for (let i = earlier.length - 1; i >= 0; i--) {
      const part = enqueueOf(resources, earlier[i]);
      if (part) return part;
    }
    return null;
  };

/**
 * A request's own part and the job its events call for, in one append (with the request's
 * Idempotency-Key record, when it has one): the results of both, the request's first. Every caller
 * that asks a job-backed resource to act goes through here (routes, batch fan-out, timers).
 */
export function appendWithItsJob(events: EventStore, resources: readonly AnyJobBackedResource[], part: AnyStreamCommand, ctx: CommandContext): Promise<CommandResult<unknown>[]> {
  return handleCommands(events, [part, withItsJob(resources)], ctx);
}
