import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiError, notFound } from '../../../../libs/http/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import type { Filter } from '../../../../libs/readstore/src/read-store.port';
import { commandContext } from '../identity/request-context';
import { projectIdOf, pathId } from '../common/resource-lifecycle';
import { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';
import { InstancesService } from '../instances/instances.service';
import { jobAttributes, jobResource } from './job-view';
import { batchJobResource } from '../batches/batch-view';
import { batchesProjection } from '../../../../projections/batches/batches.projection';

const idParams = z.object({ id: pathId });
const filters = z.object({ status: z.enum(['pending', 'processing', 'completed', 'failed']).optional(), instanceId: z.string().max(64).optional() });

/** Spec 4.3. */
@Controller()
export class JobsController {
  private readonly service: InstancesService;

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.service = new InstancesService(platform);
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/jobs',
    summary: 'List jobs',
    tag: 'Jobs',
    auth: 'project',
    query: filters,
    list: { type: 'jobs', sortFields: ['createdAt', 'status', 'updatedAt'] },
    responses: { 200: collectionSchema('jobs', jobAttributes) },
  })
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: ListQuery<z.infer<typeof filters>>) {
    const filter: Filter = { projectId: projectIdOf(p) };
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.instanceId) filter.instanceId = list.filters.instanceId;
    const { items, total } = await (await this.service.jobs()).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
    return listResult(items.map(jobResource), total);
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/jobs/failed',
    summary: 'List failed jobs',
    tag: 'Jobs',
    auth: 'project',
    list: { type: 'jobs', sortFields: ['createdAt', 'status', 'updatedAt'] },
    responses: { 200: collectionSchema('jobs', jobAttributes) },
  })
  async failed(@CurrentPrincipal() p: Principal, @Parsed('list') list: ListQuery) {
    const { items, total } = await (await this.service.jobs()).find({ filter: { projectId: projectIdOf(p), status: 'failed' }, sort: list.sort, skip: list.skip, limit: list.limit });
    return listResult(items.map(jobResource), total);
  }

  @ApiRoute({ method: 'GET', path: '/v1/jobs/{id}', summary: 'Get a job', tag: 'Jobs', auth: 'project', params: idParams, responses: { 200: resourceSchema('jobs', jobAttributes) } })
  async get(@CurrentPrincipal() p: Principal, @Parsed('params') params: z.infer<typeof idParams>) {
    const job = await (await this.service.jobs()).get(params.id);
    if (job && job.projectId === projectIdOf(p)) return { data: jobResource(job) };
    // A batch's 202 names the batch as its job.
    const batch = job ? null : await (await this.platform.projections.collection(batchesProjection)).get(params.id);
    if (batch && batch.projectId === projectIdOf(p)) return { data: await batchJobResource(this.platform, batch) };
    throw notFound('Job not found');
  }

  @ApiRoute({
    method: 'POST',
    path: '/v1/jobs/{id}/retry',
    summary: 'Retry a failed job with a fresh budget of attempts (400 RETRY_FAILED otherwise)',
    tag: 'Jobs',
    auth: 'project',
    permission: 'jobs:write',
    params: idParams,
    idempotent: true,
    responses: { 200: z.object({ data: z.object({ jobId: z.string(), status: z.literal('retrying') }) }) },
  })
  async retry(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: z.infer<typeof idParams>) {
    const batch = await (await this.platform.projections.collection(batchesProjection)).get(params.id);
    if (batch && batch.projectId === projectIdOf(p)) {
      throw new ApiError('RETRY_FAILED', 'A batch is retried item by item: retry the failed jobs listed by GET /v1/batch/batch/status');
    }
    const job = await this.service.retryJob(projectIdOf(p), params.id, commandContext(req, p));
    return { data: { jobId: job.id, status: 'retrying' as const } };
  }
}
