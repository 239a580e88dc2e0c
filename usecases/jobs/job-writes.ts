import type { AnyStreamCommand, CommandContext, CommandResult } from '../../libs/eventstore/src/handle-command';
import { appendWithItsJob } from './with-its-job';
import { jobStream } from '../../libs/domain/jobs/events';
import { notFound } from '../../libs/application/src/errors';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

const DISPATCHER = 'saga:job-dispatcher';

/** Read-your-writes for a request that starts a job: the resource's read models, then the job the dispatcher creates from its event. */
export async function settleJob(ports: PortsOf<'consistency' | 'logger' | 'waitForProjections'>, position: number | null, jobId: string, readModels: string | string[]): Promise<void> {
  if (position === null) return;
  const ok = await ports.waitForProjections(position, typeof readModels === 'string' ? [readModels] : readModels);
  const jobReady = ok && (await ports.consistency.waitForSaga(DISPATCHER, position, jobStream(jobId), ['jobs']));
  if (!jobReady) ports.logger.warn({ jobId, position }, 'read models did not catch up within the consistency wait');
}

/**
 * Read-your-writes for a request appended together with its job (`withItsJob`): one wait, woken by the
 * projection engine, for the resource's read models and the jobs model to pass the job's position
 * (the job's event follows the request's in the same commit). Without the job's part (a recovering
 * request answered from its earlier write), as settleJob.
 */
export async function settleWithJob(
  ports: PortsOf<'consistency' | 'logger' | 'waitForProjections'>,
  results: ReadonlyArray<{ position: number | null }>,
  jobId: string,
  readModels: string[],
): Promise<void> {
  const [own, job] = results;
  if (!job || job.position === null) return settleJob(ports, own?.position ?? null, jobId, readModels);
  if (!(await ports.waitForProjections(job.position, [...readModels, 'jobs']))) ports.logger.warn({ jobId, position: job.position }, 'read models did not catch up within the consistency wait');
}

/** A route's request and its job in one append (`appendWithItsJob`), with the resources the contexts registered. */
export function requestWithItsJob(ports: PortsOf<'events' | 'registry'>, part: AnyStreamCommand, ctx: CommandContext): Promise<CommandResult<unknown>[]> {
  return appendWithItsJob(ports.events, Object.values(ports.registry.jobResources), part, ctx);
}

/**
 * A project's resource as of a write we just made: from the read model once it has caught up, else
 * folded from its own stream, so an accepted write never answers 404 or stale data.
 */
export async function written<D extends ReadDoc & { projectId: string | null }>(
  ports: PortsOf<'readBack'>,
  projection: DocumentProjection<D>,
  stream: string,
  id: string,
  projectId: string,
  position: number | null,
  label: string,
): Promise<D> {
  const doc = await ports.readBack(projection, stream, id, position);
  if (!doc || doc.projectId !== projectId) throw notFound(`${label} not found`);
  return doc;
}

/** A project's document by id from a read model, else 404 (another project's ids included). */
export async function ownDoc<D extends ReadDoc & { projectId: string | null }>(ports: PortsOf<'projections'>, projection: DocumentProjection<D>, projectId: string, id: string, label: string): Promise<D> {
  const doc = await (await ports.projections.collection(projection)).get(id);
  if (!doc || doc.projectId !== projectId) throw notFound(`${label} not found`);
  return doc;
}

export const requestedBy = (ctx: CommandContext) => String(ctx.metadata.actor ?? 'unknown');
