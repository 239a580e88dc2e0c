import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { AnyJobBackedResource, JobToRun } from '../../libs/runtime/src/job-ports';

/**
 * DECISIONS 7: a manual retry puts the resource back in the status its operation starts from (only
 * out of the `error` the failed job left; otherwise nothing is recorded). Resolves with the position.
 */
export async function resetForRetry(events: EventStore, resource: AnyJobBackedResource, job: Pick<JobToRun, 'id' | 'resourceId'>, now: string, ctx: CommandContext): Promise<number | null> {
  const r = await handleCommand(events, resource.stream(job.resourceId), resource.decider, { type: 'RetryOperation', jobId: job.id, now }, ctx);
  return r.position;
}
