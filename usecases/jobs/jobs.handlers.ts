import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { jobDecider } from '../../libs/domain/jobs/job.decider';
import { jobStream } from '../../libs/domain/jobs/events';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { AppError, notFound } from '../../libs/application/src/errors';
import { pageOf, type ListPage } from '../../libs/application/src/views';
import type { Filter } from '../../libs/readstore/src/read-store.port';
import { batchesProjection } from '../../projections/batches/batches.projection';
import { batchJobResource } from '../batches/batch-view';
import { jobsProjection, type JobDoc } from '../../projections/jobs/jobs.projection';
import { resetForRetry } from './reset-for-retry';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** A failed job re-opened with a fresh budget of attempts (DECISIONS 7). */
export class RetryJob extends Command<JobDoc> {
  constructor(readonly projectId: string, readonly jobId: string, readonly ctx: CommandContext) {
    super();
  }
}
export class ListJobs extends Query<{ items: JobDoc[]; total: number }> {
  constructor(readonly projectId: string, readonly filters: { status?: string; instanceId?: string }, readonly page: ListPage) {
    super();
  }
}
/** A job, or a batch shown as one job (its 202 names the batch as its job). */
export class GetJob extends Query<{ job: JobDoc } | { batchJob: Awaited<ReturnType<typeof batchJobResource>> }> {
  constructor(readonly projectId: string, readonly id: string) {
    super();
  }
}

const ownBatch = async (ports: PortsOf<'projections'>, projectId: string, id: string) => {
  const batch = await (await ports.projections.collection(batchesProjection)).get(id);
  return batch && batch.projectId === projectId ? batch : null;
};

/**
 * The resource the job acts on goes back to the status its operation starts from before the job is
 * re-opened: the executor may begin the next attempt as soon as JobRetried is appended, and that
 * attempt must find the resource reset. Whether the job failed is checked on its own stream (the
 * read model may lag a failure or another retry).
 */
@CommandHandler(RetryJob)
export class RetryJobHandler implements ICommandHandler<RetryJob> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'registry' | 'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, jobId, ctx }: RetryJob): Promise<JobDoc> {
    const { events } = this.ports;
    if (await ownBatch(this.ports, projectId, jobId)) throw new AppError('RETRY_FAILED', 'A batch is retried item by item: retry the failed jobs listed by GET /v1/batch/batch/status');
    const job = await (await this.ports.projections.collection(jobsProjection)).get(jobId);
    if (!job || job.projectId !== projectId) throw notFound('Job not found');
    const { state } = await aggregateStream(events, jobStream(jobId), jobDecider);
    // The decider refuses anything but a failed job (400 RETRY_FAILED); asked here first so a refused retry resets nothing.
    // A re-run after a crash (DECISIONS 5) finds its reset and its retry written (each append answers with them).
    if (!ctx.metadata.recovering) jobDecider.decide({ type: 'RetryJob', now: this.ports.now() }, state);
    const resource = this.ports.registry.jobResources[job.resourceType];
    const resetAt = resource ? await resetForRetry(events, resource, job, this.ports.now(), ctx) : null;
    const retried = await handleCommand(events, jobStream(jobId), jobDecider, { type: 'RetryJob', now: this.ports.now() }, ctx);
    await this.ports.waitForProjections(Math.max(retried.position ?? 0, resetAt ?? 0) || null, resource ? [resource.readModel, 'jobs'] : ['jobs']);
    return (await this.ports.readBack(jobsProjection, jobStream(jobId), jobId, retried.position))!;
  }
}

@QueryHandler(ListJobs)
export class ListJobsHandler implements IQueryHandler<ListJobs> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, filters, page }: ListJobs) {
    const filter: Filter = { projectId };
    if (filters.status) filter.status = filters.status;
    if (filters.instanceId) filter.instanceId = filters.instanceId;
    return (await this.ports.projections.collection(jobsProjection)).find({ filter, ...pageOf(page) });
  }
}

@QueryHandler(GetJob)
export class GetJobHandler implements IQueryHandler<GetJob> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, id }: GetJob) {
    const job = await (await this.ports.projections.collection(jobsProjection)).get(id);
    if (job && job.projectId === projectId) return { job };
    const batch = job ? null : await ownBatch(this.ports, projectId, id);
    if (batch) return { batchJob: await batchJobResource(this.ports, batch) };
    throw notFound('Job not found');
  }
}

export const JOB_HANDLERS = [RetryJobHandler, ListJobsHandler, GetJobHandler];
