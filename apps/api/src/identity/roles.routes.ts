import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GRANT_PATTERN } from '../../../../libs/domain/identity/roles';
import { type Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, permissionCatalogue, route, type RouteInput } from '../../../../libs/http/src/route';
import { BusController } from '../common/bus-controller';
import { pathId, projectIdOf } from '../common/resource-lifecycle';
import { commandContext, granteeOf } from './request-context';
import { CreateRole, DeleteRole, GetRole, ListRoles, UpdateRole, type RoleView } from '../../../../usecases/identity/roles.handlers';
import { inMemoryList } from '../../../../libs/http/src/list-query';

const TYPE = 'roles';

/** A grant of the published catalogue (DECISIONS 15): `resource:action` with `read`, `write` or `*`, `resource` may be `*`; `*` alone is `*:*`. */
export function isCataloguedGrant(grant: string): boolean {
  if (!GRANT_PATTERN.test(grant)) return false;
  if (grant === '*') return true;
  const [resource, action] = grant.split(':');
  if (resource === '*') return true;
  return permissionCatalogue().some((p) => p.resource === resource && (action === '*' || p.action === action));
}

const permissions = z
  .array(z.string().max(128).refine(isCataloguedGrant, { message: 'must be a resource:action of the catalogue (GET /v1/iam/permissions), with * for any resource or action' }))
  .min(1)
  .max(200);
const name = z.string().trim().min(1).max(64).describe('Unique in the project (case-insensitive); built-in names are taken');
const description = z.string().max(500).nullable();

const roleAttributes = z.object({
  name: z.string(),
  description: z.string().nullable(),
  builtIn: z.boolean().describe('Built-in roles cannot be changed or deleted (409 INVALID_STATE)'),
  permissions: z.array(z.string()).describe('Grants of a custom role as given; a built-in role’s permissions over the catalogue'),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
const one = resourceSchema(TYPE, roleAttributes);
const idParams = z.object({ id: pathId });
const common = { tag: 'Identity', auth: 'project' } as const;

const listRoute = route({ ...common, method: 'GET', path: '/v1/iam/roles', summary: 'List the built-in roles and the project’s custom roles, with their permissions', permission: 'roles:read', list: inMemoryList(TYPE, ['name', 'createdAt'], 'the built-in roles merged with the project\'s custom roles (at most 100, read by the [projectId, -createdAt, id] index)', 'name'), query: z.object({ builtIn: z.enum(['true', 'false']).optional() }), responses: { 200: collectionSchema(TYPE, roleAttributes) } });
const createRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/iam/roles',
  summary: 'Create a custom role',
  description: 'Its permissions must be held by the creating credential (403); a duplicate name is 409 CONFLICT.',
  permission: 'roles:write',
  type: TYPE,
  idempotent: true,
  body: z.object({ name, description: description.optional(), permissions }),
  responses: { 201: one },
});
const getRoute = route({ ...common, method: 'GET', path: '/v1/iam/roles/{id}', summary: 'Get a role (a built-in name or a custom role id) with its permissions', permission: 'roles:read', params: idParams, responses: { 200: one } });
const updateRoute = route({
  ...common,
  method: 'PATCH',
  path: '/v1/iam/roles/{id}',
  summary: 'Change a custom role’s permissions, name or description (built-ins: 409 INVALID_STATE)',
  permission: 'roles:write',
  type: TYPE,
  params: idParams,
  body: z.object({ name: name.optional(), description: description.optional(), permissions: permissions.optional() }),
  responses: { 200: one },
});
const deleteRoute = route({ ...common, method: 'DELETE', path: '/v1/iam/roles/{id}', summary: 'Delete a custom role (in use by a member or key: 409 CONFLICT; built-ins: 409 INVALID_STATE)', permission: 'roles:write', params: idParams, responses: { 204: null } });

const roleResource = (r: RoleView) => ({ id: r.id, type: TYPE, attributes: { name: r.name, description: r.description, builtIn: r.builtIn, permissions: r.permissions, createdAt: r.createdAt, updatedAt: r.updatedAt } });
const roleDocument = (r: RoleView) => {
  const x = roleResource(r);
  return resource(x.type, x.id, x.attributes);
};

@Controller()
export class RolesController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListRoles(projectIdOf(principal), list));
    return listResult(items.map(roleResource), total);
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const fields = { name: body.name, description: body.description ?? null, permissions: body.permissions };
    return roleDocument(await this.commands.execute(new CreateRole(projectIdOf(principal), fields, granteeOf(principal), commandContext(req, principal))));
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return roleDocument(await this.queries.execute(new GetRole(projectIdOf(principal), params.id)));
  }

  @ApiRoute(updateRoute)
  async update(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof updateRoute>) {
    return roleDocument(await this.commands.execute(new UpdateRole(projectIdOf(principal), p.params.id, p.body, granteeOf(principal), commandContext(req, principal))));
  }

  @ApiRoute(deleteRoute)
  async delete(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deleteRoute>['params']) {
    await this.commands.execute(new DeleteRole(projectIdOf(principal), params.id, commandContext(req, principal)));
  }
}
