import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { commandContext } from '../identity/request-context';
import { dataScopeOf, pathId } from '../common/resource-lifecycle';
import { instanceAttributes, instanceResource } from './instance-view';
import { tagsSchema } from '../../../../libs/domain/shared/tags';
import { CreateInstance, GetInstance, InstanceHistory, InstanceJobs, InstanceMetrics, ListInstances, RequestInstanceAction, SyncInstanceStatuses, UpdateInstance } from '../../../../usecases/compute/instances.handlers';
import { jobResource, jobAttributes } from '../jobs/job-view';
import { BusController } from '../common/bus-controller';
import { INSTANCE } from '../../../../libs/domain/compute/instance.fields';
import { listOf } from '../../../../libs/http/src/list-query';
import { INSTANCES_BY_STATUS_LIST, INSTANCES_LIST } from '../../../../projections/instances/instances.projection';
import { INSTANCE_EVENTS_LIST } from '../../../../projections/instance-events/instance-events.projection';
import { INSTANCE_JOBS_LIST } from '../../../../projections/jobs/jobs.projection';

/** The create body (shared with the cost estimate, DECISIONS 22). */
const fields = INSTANCE.stored.shape;
const id64 = (s: z.ZodString) => s.min(1).max(64);
export const instanceCreateBody = z.object({
  name: id64(fields.name),
  providerId: id64(fields.providerId),
  region: id64(fields.region),
  instanceType: id64(fields.instanceType),
  workerCount: fields.workerCount.min(1).max(1000).optional(),
  image: fields.image.unwrap().min(1).max(128).optional(),
  diskSizeGb: z.number().int().min(1).max(1_000_000).optional(),
  sshKeyId: id64(z.string()).optional(),
  spot: fields.spot.optional(),
  ports: z.array(fields.ports.element.min(1).max(65535)).max(100).optional(),
  autoStopMinutes: fields.autoStopMinutes.unwrap().min(0).max(525_600).optional(),
  accelerators: fields.accelerators.unwrap().regex(/^[A-Za-z0-9._-]+:[1-9][0-9]{0,2}$/, 'must be <GPU type>:<count>').optional(),
  tags: tagsSchema.optional(),
});
const patchBody = z.object({ name: id64(fields.name).optional(), tags: tagsSchema.optional() });
const actionBody = z.object({ action: z.enum(['start', 'stop', 'restart', 'terminate', 'reinstall', 'rescue']) });
const idParams = z.object({ id: pathId });
const listFilters = z.object({
  status: fields.status.optional(),
  provider: z.string().max(64).optional(),
  region: z.string().max(64).optional(),
});
const allFilters = z.object({ refresh: z.enum(['true', 'false']).optional() });
const collection = collectionSchema('instances', instanceAttributes);
const allSchema = collection.extend({
  meta: collection.shape.meta.extend({
    refreshed: z.boolean(),
    sync: z
      .object({ checked: z.number().int(), changed: z.number().int(), unreachable: z.number().int() })
      .optional()
      .describe('With refresh=true: instances asked, statuses recorded as changed, drivers that did not answer'),
  }),
});
const accepted = resourceSchema('instances', instanceAttributes, { jobId: z.string() });

/** Spec 4.1: maps HTTP to the instance commands and queries (instances.handlers.ts) and back. */
const createRoute = route({
  method: 'POST',
  path: '/v1/instances',
  summary: 'Create an instance: 202 with the instance in creating and the id of its job',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:write',
  type: 'instances',
  body: instanceCreateBody,
  idempotent: true,
  responses: { 202: accepted },
});
const listRoute = route({
  method: 'GET',
  path: '/v1/instances',
  summary: 'List instances (terminated ones only with status=terminated)',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  query: listFilters,
  list: listOf('instances', [INSTANCES_LIST, INSTANCES_BY_STATUS_LIST]),
  responses: { 200: collectionSchema('instances', instanceAttributes) },
});
const allRoute = route({
  method: 'GET',
  path: '/v1/instances/all',
  summary: 'All active instances across enabled providers; refresh=true first syncs live statuses from the drivers and records the ones that changed',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  query: allFilters,
  list: listOf('instances', [INSTANCES_LIST, INSTANCES_BY_STATUS_LIST]),
  responses: { 200: allSchema },
});
const getRoute = route({ method: 'GET', path: '/v1/instances/{id}', summary: 'Get an instance', tag: 'Instances', auth: 'project', permission: 'instances:read', params: idParams, responses: { 200: resourceSchema('instances', instanceAttributes) } });
const patchRoute = route({
  method: 'PATCH',
  path: '/v1/instances/{id}',
  summary: 'Rename an instance or replace its tags',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:write',
  type: 'instances',
  params: idParams,
  body: patchBody,
  responses: { 200: resourceSchema('instances', instanceAttributes) },
});
const removeRoute = route({
  method: 'DELETE',
  path: '/v1/instances/{id}',
  summary: 'Terminate an instance (asynchronous): 202 with its job id',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:write',
  params: idParams,
  idempotent: true,
  responses: { 202: accepted },
});
const actionRoute = route({
  method: 'POST',
  path: '/v1/instances/{id}/actions',
  summary: 'Start, stop, restart, terminate, reinstall or rescue an instance: 202 with the job id',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:write',
  type: 'actions',
  params: idParams,
  body: actionBody,
  idempotent: true,
  responses: { 202: accepted },
});
const eventsRoute = route({
  method: 'GET',
  path: '/v1/instances/{id}/events',
  summary: "The instance's activity log: its recorded events, newest first",
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  params: idParams,
  list: listOf('instance-events', INSTANCE_EVENTS_LIST, { rename: { createdAt: 'revision' } }),
  responses: { 200: collectionSchema('instance-events', z.object({ event: z.string(), revision: z.number(), data: z.record(z.string(), z.unknown()), actor: z.string().nullable(), createdAt: z.string() })) },
});
const jobsRoute = route({
  method: 'GET',
  path: '/v1/instances/{id}/jobs',
  summary: "The instance's job history",
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  params: idParams,
  list: listOf('jobs', INSTANCE_JOBS_LIST),
  responses: { 200: collectionSchema('jobs', jobAttributes) },
});
const sshRoute = route({
  method: 'GET',
  path: '/v1/instances/{id}/ssh',
  summary: 'SSH connection details',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  params: idParams,
  responses: { 200: z.object({ data: z.object({ id: z.string(), type: z.literal('ssh-details'), attributes: z.object({ host: z.string().nullable(), port: z.number(), username: z.string(), keyFingerprint: z.string().nullable(), command: z.string().nullable() }) }) }) },
});
const metricsRoute = route({
  method: 'GET',
  path: '/v1/instances/{id}/metrics',
  summary: 'CPU, memory, GPU, network and disk utilization from the provider driver',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  params: idParams,
  query: z.object({ points: z.coerce.number().int().min(1).max(1440).optional() }),
  responses: { 200: z.object({ data: z.object({ id: z.string(), type: z.literal('instance-metrics'), attributes: z.object({ samples: z.array(z.record(z.string(), z.unknown())) }) }) }) },
});

@Controller()
export class InstancesController extends BusController {
  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const input = { ...body, tags: body.tags ?? [] };
    const { doc, jobId } = await this.commands.execute(new CreateInstance(dataScopeOf(p), input, commandContext(req, p)));
    return { data: instanceResource(doc, { expandPlan: true }), jobId };
  }

  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListInstances(dataScopeOf(p), list.filters, list));
    return listResult(items.map((d) => instanceResource(d)), total);
  }

  @ApiRoute(allRoute)
  async all(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof allRoute>['list']) {
    const projectId = dataScopeOf(p);
    const refreshed = list.filters.refresh === 'true' ? await this.commands.execute(new SyncInstanceStatuses(projectId, commandContext(req, p))) : null;
    const { items, total } = await this.queries.execute(new ListInstances(projectId, { active: true }, list));
    return listResult(items.map((d) => instanceResource(d)), total, { refreshed: refreshed !== null, ...(refreshed ? { sync: refreshed } : {}) });
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return { data: instanceResource(await this.queries.execute(new GetInstance(dataScopeOf(p), params.id))) };
  }

  @ApiRoute(patchRoute)
  async patch(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof patchRoute>['params'], @Parsed('body') body: RouteInput<typeof patchRoute>['body']) {
    const input = { name: body.name, tags: body.tags };
    return { data: instanceResource(await this.commands.execute(new UpdateInstance(dataScopeOf(p), params.id, input, commandContext(req, p)))) };
  }

  @ApiRoute(removeRoute)
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof removeRoute>['params']) {
    const { doc, jobId } = await this.commands.execute(new RequestInstanceAction(dataScopeOf(p), params.id, 'terminate', commandContext(req, p), true));
    return { data: instanceResource(doc), jobId };
  }

  @ApiRoute(actionRoute)
  async action(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof actionRoute>['params'], @Parsed('body') body: RouteInput<typeof actionRoute>['body']) {
    const { doc, jobId } = await this.commands.execute(new RequestInstanceAction(dataScopeOf(p), params.id, body.action, commandContext(req, p)));
    return { data: instanceResource(doc), jobId };
  }

  @ApiRoute(eventsRoute)
  async events(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof eventsRoute>['params'], @Parsed('list') list: RouteInput<typeof eventsRoute>['list']) {
    const { items, total } = await this.queries.execute(new InstanceHistory(dataScopeOf(p), params.id, list));
    return listResult(
      items.map((e) => ({ id: e.id, type: 'instance-events', attributes: { event: e.event, revision: e.revision, data: e.data, actor: e.actor, createdAt: e.createdAt } })),
      total,
    );
  }

  @ApiRoute(jobsRoute)
  async jobs(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof jobsRoute>['params'], @Parsed('list') list: RouteInput<typeof jobsRoute>['list']) {
    const { items, total } = await this.queries.execute(new InstanceJobs(dataScopeOf(p), params.id, list));
    return listResult(items.map(jobResource), total);
  }

  @ApiRoute(sshRoute)
  async ssh(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof sshRoute>['params']) {
    const doc = await this.queries.execute(new GetInstance(dataScopeOf(p), params.id));
    const username = doc.sshUser ?? 'root';
    const port = doc.sshPort ?? 22;
    return {
      data: {
        id: doc.id,
        type: 'ssh-details',
        attributes: { host: doc.ipv4, port, username, keyFingerprint: doc.sshKeyFingerprint ?? null, command: doc.ipv4 ? `ssh -p ${port} ${username}@${doc.ipv4}` : null },
      },
    };
  }

  @ApiRoute(metricsRoute)
  async metrics(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof metricsRoute>['params'], @Parsed('query') q: RouteInput<typeof metricsRoute>['query']) {
    const samples = await this.queries.execute(new InstanceMetrics(dataScopeOf(p), params.id, q.points ?? 60));
    return { data: { id: params.id, type: 'instance-metrics', attributes: { samples } } };
  }
}
