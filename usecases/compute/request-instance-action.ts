import { instanceDecider } from '../../libs/domain/compute/instance.decider';
import { instanceStream, type InstanceAction } from '../../libs/domain/compute/instance.events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { CommandContext, CommandResult } from '../../libs/eventstore/src/handle-command';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import { isoNow } from '../../libs/runtime/src/clock';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { volumesHeldBy, volumesProjection } from '../../projections/volumes/volumes.projection';
import { appendWithItsJob } from '../jobs/with-its-job';

export interface InstanceActionRequest {
  /** The data scope asking; another scope's instance is not found. */
  projectId: string;
  instanceId: string;
  action: InstanceAction;
  /** The job the action runs as: the caller's (a batch derives it from the batch, so a replay reuses it). */
  jobId: string;
  /** A DELETE (job type instance.delete) rather than a terminate action. */
  viaDelete?: boolean;
}

/**
 * One use case for every caller that asks an instance to act: the HTTP routes, the batch fan-out and
 * the auto-stop timer. The instance must be the scope's (its stream's first event says so, never a
 * read model that may lag); a terminate names the volumes it holds, which the decider refuses; the
 * actor of the context is who asked. The request and its job (of `jobResources`) commit in one
 * append: the results of both, the request's first (the job's is absent when nothing was decided).
 */
export async function requestInstanceAction(
  ports: PortsOf<'events' | 'projections' | 'clock'>,
  { projectId, instanceId, action, jobId, viaDelete = false }: InstanceActionRequest,
  ctx: CommandContext,
  jobResources: readonly AnyJobBackedResource[],
): Promise<CommandResult<unknown>[]> {
  const stream = instanceStream(instanceId);
  const [first] = await ports.events.readStream(stream, { maxCount: 1 });
  if (!first || (first.data as { projectId?: unknown }).projectId !== projectId) throw new DomainError('NOT_FOUND', 'Instance not found');
  const attachedVolumes = action === 'terminate' ? await volumesHeldBy(await ports.projections.collection(volumesProjection), instanceId) : undefined;
  const command = { type: 'RequestInstanceAction' as const, jobId, action, viaDelete, now: isoNow(ports.clock), requestedBy: String(ctx.metadata.actor ?? 'unknown'), attachedVolumes };
  return appendWithItsJob(ports.events, jobResources, { streamId: stream, decider: instanceDecider, command }, ctx);
}
