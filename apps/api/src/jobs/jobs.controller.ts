import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { commandContext } from '../identity/request-context';
import { dataScopeOf, pathId } from '../common/resource-lifecycle';
import { jobAttributes, jobResource } from './job-view';
import { GetJob, ListJobs, RetryJob } from '../../../../usecases/jobs/jobs.handlers';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';
import { JOBS_BY_STATUS_LIST, JOBS_LIST } from '../../../../projections/jobs/jobs.projection';

const idParams = z.object({ id: pathId });
const filters = z.object({ status: z.enum(['pending', 'processing', 'completed', 'failed']).optional(), instanceId: z.string().max(64).optional() });

/** Spec 4.3. */
const listRoute = route({
  method: 'GET',
  path: '/v1/jobs',
  summary: 'List jobs',
  tag: 'Jobs',
  auth: 'project',
  permission: 'jobs:read',
  query: filters,
  list: listOf('jobs', [JOBS_LIST, JOBS_BY_STATUS_LIST]),
  responses: { 200: collectionSchema('jobs', jobAttributes) },
});
const failedRoute = route({
  method: 'GET',
  path: '/v1/jobs/failed',
  summary: 'List failed jobs',
  tag: 'Jobs',
  auth: 'project',
  permission: 'jobs:read',
  list: listOf('jobs', [JOBS_LIST, JOBS_BY_STATUS_LIST]),
  responses: { 200: collectionSchema('jobs', jobAttributes) },
});
const getRoute = route({ method: 'GET', path: '/v1/jobs/{id}', summary: 'Get a job', tag: 'Jobs', auth: 'project', permission: 'jobs:read', params: idParams, responses: { 200: resourceSchema('jobs', jobAttributes) } });
const retryRoute = route({
  method: 'POST',
  path: '/v1/jobs/{id}/retry',
  summary: 'Retry a failed job with a fresh budget of attempts (400 RETRY_FAILED otherwise)',
  tag: 'Jobs',
  auth: 'project',
  permission: 'jobs:write',
  params: idParams,
  idempotent: true,
  responses: { 200: z.object({ data: z.object({ jobId: z.string(), status: z.literal('retrying') }) }) },
});

@Controller()
export class JobsController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListJobs(dataScopeOf(p), list.filters, list));
    return listResult(items.map(jobResource), total);
  }

  @ApiRoute(failedRoute)
  async failed(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof failedRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListJobs(dataScopeOf(p), { status: 'failed' }, list));
    return listResult(items.map(jobResource), total);
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    const found = await this.queries.execute(new GetJob(dataScopeOf(p), params.id));
    return { data: 'job' in found ? jobResource(found.job) : found.batchJob };
  }

  @ApiRoute(retryRoute)
  async retry(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof retryRoute>['params']) {
    const job = await this.commands.execute(new RetryJob(dataScopeOf(p), params.id, commandContext(req, p)));
    return { data: { jobId: job.id, status: 'retrying' as const } };
  }
}
