import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { commandContext } from '../identity/request-context';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { SERVER } from '../../../../libs/domain/servers/server.fields';
import { tagsSchema } from '../../../../libs/domain/shared/tags';
import { backupAttributes, backupResource, serverAttributes, serverResource } from './server-view';
import { CreateBackup, CreateServer, type CreateServerInput, DeleteBackup, DeleteServer, GetBackup, GetServer, ListBackups, ListServers, RequestServerPowerAction, RestoreBackup, UpdateServer } from '../../../../usecases/servers/servers.handlers';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';
import { SERVERS_BY_STATUS_LIST, SERVERS_LIST } from '../../../../projections/servers/servers.projection';
import { BACKUPS_LIST } from '../../../../projections/backups/backups.projection';

const fields = SERVER.stored.shape;

/** Spec 4.2 create fields (inside `{data:{type:'servers', attributes}}`, or flat): the declared ones (SERVER) with the request's limits. */
export const serverCreateBody = z
  .object({
    name: fields.name.min(1).max(64),
    hostname: fields.hostname.min(1).max(253).regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be a valid hostname'),
    project: z.string().max(64).optional(),
    site: fields.site.min(1).max(64),
    plan: z.string().min(1).max(64),
    operating_system: z.string().min(1).max(128),
    billing: fields.billing,
    ssh_keys: z.array(z.string().min(1).max(128)).max(50).optional(),
    user_data: z.string().max(65_536).optional(),
    tags: tagsSchema.optional(),
    role: fields.role.optional(),
    provider: z.string().min(1).max(64).optional(),
    worker_count: z.number().int().min(1).max(1000).optional(),
    spot: z.boolean().optional(),
    accelerators: z.string().regex(/^[A-Za-z0-9._-]+:[1-9][0-9]{0,2}$/, 'must be <GPU type>:<count>').optional(),
  })
  .refine((b) => b.role !== 'VirtualMachine' || b.provider !== undefined, { message: 'provider is required for VirtualMachine servers', path: ['provider'] });
/** A create body as the create handler takes it (shared with the cost estimate, DECISIONS 22). */
export const serverCreateInput = (body: z.output<typeof serverCreateBody>): CreateServerInput => ({
  name: body.name,
  hostname: body.hostname,
  billing: body.billing,
  role: body.role,
  sshKeys: body.ssh_keys,
  userData: body.user_data,
  tags: body.tags ?? [],
  workerCount: body.worker_count,
  spot: body.spot,
  accelerators: body.accelerators,
  site: body.site,
  plan: body.plan,
  operatingSystem: body.operating_system,
  provider: body.provider,
});
const patchBody = z.object({ label: fields.label.min(1).max(64).optional(), locked: fields.locked.optional(), tags: tagsSchema.optional(), plan: z.string().min(1).max(64).optional() });
const actionBody = z.object({ action: z.enum(['power_on', 'power_off', 'reboot']) });
const backupBody = z.object({ name: z.string().min(1).max(64) });
const idParams = z.object({ id: pathId });
const instanceParams = z.object({ instanceId: pathId });
const listFilters = z.object({ status: fields.status.optional(), site: fields.site.max(64).optional(), role: fields.role.optional() });

const serverDoc = resourceSchema('servers', serverAttributes);
const withJob = resourceSchema('servers', serverAttributes, { jobId: z.string() });
const backupDoc = resourceSchema('backups', backupAttributes);

/** Spec 4.2: servers (bare metal and VMs) and their backups, with the instance aliases of the backup routes. */
const listRoute = route({
  method: 'GET',
  path: '/v1/servers',
  summary: 'List servers (terminated ones only with status=terminated)',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:read',
  query: listFilters,
  list: listOf('servers', [SERVERS_LIST, SERVERS_BY_STATUS_LIST]),
  responses: { 200: collectionSchema('servers', serverAttributes) },
});
/** Every keyed server route rebuilds a lost answer from what it wrote (server, backup or restore). */
const getRoute = route({ method: 'GET', path: '/v1/servers/{id}', summary: 'Get a server (terminated servers stay readable)', tag: 'Servers', auth: 'project', permission: 'servers:read', params: idParams, responses: { 200: serverDoc } });
const createRoute = route({
  method: 'POST',
  path: '/v1/servers',
  summary: 'Create a server: 201 in status creating, with the id of its server.create job',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:write',
  type: 'servers',
  body: serverCreateBody,
  idempotent: true,
  responses: { 201: withJob },
});
const patchRoute = route({
  method: 'PATCH',
  path: '/v1/servers/{id}',
  summary: 'Change label, tags or lock; a new plan migrates the server (migrating → active, job id returned)',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:write',
  type: 'servers',
  params: idParams,
  body: patchBody,
  responses: { 200: resourceSchema('servers', serverAttributes, { jobId: z.string().optional() }) },
});
const removeRoute = route({
  method: 'DELETE',
  path: '/v1/servers/{id}',
  summary: 'Delete a server: 204; it goes deleting → terminated through a job',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:write',
  params: idParams,
  responses: { 204: null },
});
const actionRoute = route({
  method: 'POST',
  path: '/v1/servers/{id}/actions',
  summary: 'power_on, power_off or reboot a server: 202 with the job id',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:write',
  type: 'actions',
  params: idParams,
  body: actionBody,
  idempotent: true,
  responses: { 202: withJob },
});
const serverBackupsRoute = route({
  method: 'GET',
  path: '/v1/servers/{id}/backups',
  summary: "The server's backups",
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:read',
  params: idParams,
  list: listOf('backups', BACKUPS_LIST),
  responses: { 200: collectionSchema('backups', backupAttributes) },
});
const backupServerRoute = route({
  method: 'POST',
  path: '/v1/servers/{id}/backups',
  summary: 'Back up a server',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:write',
  type: 'backups',
  params: idParams,
  body: backupBody,
  idempotent: true,
  responses: { 201: backupDoc },
});
const instanceBackupsRoute = route({
  method: 'GET',
  path: '/v1/instances/{instanceId}/backups',
  summary: "The instance's backups (the server backup resource, keyed by the instance id)",
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:read',
  params: instanceParams,
  list: listOf('backups', BACKUPS_LIST),
  responses: { 200: collectionSchema('backups', backupAttributes) },
});
const backupInstanceRoute = route({
  method: 'POST',
  path: '/v1/instances/{instanceId}/backups',
  summary: 'Back up an instance',
  tag: 'Instances',
  auth: 'project',
  permission: 'instances:write',
  type: 'backups',
  params: instanceParams,
  body: backupBody,
  idempotent: true,
  responses: { 201: backupDoc },
});
const getBackupRoute = route({ method: 'GET', path: '/v1/backups/{id}', summary: 'Get a backup (archived backups are gone: 404)', tag: 'Servers', auth: 'project', permission: 'servers:read', params: idParams, responses: { 200: backupDoc } });
const restoreRoute = route({
  method: 'POST',
  path: '/v1/backups/{id}/restore',
  summary: 'Create a new server from the backup (201) and archive the backup',
  tag: 'Servers',
  auth: 'project',
  permission: 'servers:write',
  params: idParams,
  idempotent: true,
  responses: { 201: withJob },
});
const deleteBackupRoute = route({ method: 'DELETE', path: '/v1/backups/{id}', summary: 'Delete (archive) a backup', tag: 'Servers', auth: 'project', permission: 'servers:write', params: idParams, responses: { 204: null } });

@Controller()
export class ServersController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListServers(dataScopeOf(p), list.filters, list));
    return listResult(items.map(serverResource), total);
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return { data: serverResource(await this.queries.execute(new GetServer(dataScopeOf(p), params.id))) };
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const input = serverCreateInput(body);
    const { doc, jobId } = await this.commands.execute(new CreateServer(dataScopeOf(p), input, commandContext(req, p)));
    return { data: serverResource(doc), jobId };
  }

  @ApiRoute(patchRoute)
  async patch(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof patchRoute>['params'], @Parsed('body') body: RouteInput<typeof patchRoute>['body']) {
    const { doc, jobId } = await this.commands.execute(new UpdateServer(dataScopeOf(p), params.id, body, commandContext(req, p)));
    return { data: serverResource(doc), ...(jobId ? { jobId } : {}) };
  }

  @ApiRoute(removeRoute)
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof removeRoute>['params']) {
    await this.commands.execute(new DeleteServer(dataScopeOf(p), params.id, commandContext(req, p)));
  }

  @ApiRoute(actionRoute)
  async action(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof actionRoute>['params'], @Parsed('body') body: RouteInput<typeof actionRoute>['body']) {
    const { doc, jobId } = await this.commands.execute(new RequestServerPowerAction(dataScopeOf(p), params.id, body.action, commandContext(req, p)));
    return { data: serverResource(doc), jobId };
  }

  @ApiRoute(serverBackupsRoute)
  async serverBackups(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof serverBackupsRoute>['params'], @Parsed('list') list: RouteInput<typeof serverBackupsRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListBackups(dataScopeOf(p), 'server', params.id, list));
    return listResult(items.map(backupResource), total);
  }

  @ApiRoute(backupServerRoute)
  async backupServer(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof backupServerRoute>['params'], @Parsed('body') body: RouteInput<typeof backupServerRoute>['body']) {
    return { data: backupResource(await this.commands.execute(new CreateBackup(dataScopeOf(p), 'server', params.id, body.name, commandContext(req, p)))) };
  }

  @ApiRoute(instanceBackupsRoute)
  async instanceBackups(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof instanceBackupsRoute>['params'], @Parsed('list') list: RouteInput<typeof instanceBackupsRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListBackups(dataScopeOf(p), 'instance', params.instanceId, list));
    return listResult(items.map(backupResource), total);
  }

  @ApiRoute(backupInstanceRoute)
  async backupInstance(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof backupInstanceRoute>['params'], @Parsed('body') body: RouteInput<typeof backupInstanceRoute>['body']) {
    return { data: backupResource(await this.commands.execute(new CreateBackup(dataScopeOf(p), 'instance', params.instanceId, body.name, commandContext(req, p)))) };
  }

  @ApiRoute(getBackupRoute)
  async getBackup(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof getBackupRoute>['params']) {
    return { data: backupResource(await this.queries.execute(new GetBackup(dataScopeOf(p), params.id))) };
  }

  @ApiRoute(restoreRoute)
  async restore(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof restoreRoute>['params']) {
    const { doc, jobId } = await this.commands.execute(new RestoreBackup(dataScopeOf(p), params.id, commandContext(req, p)));
    return { data: serverResource(doc), jobId };
  }

  @ApiRoute(deleteBackupRoute)
  async deleteBackup(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof deleteBackupRoute>['params']) {
    await this.commands.execute(new DeleteBackup(dataScopeOf(p), params.id, commandContext(req, p)));
  }
}
