import { Controller, Inject } from '@nestjs/common';
import { QueryBus } from '../common/bus-controller';
import { z } from 'zod';
import { PROJECT_ROLES } from '../../../../libs/domain/identity/roles';
import { collectionSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, Parsed, route, type CataloguedPermission, type RouteInput } from '../../../../libs/http/src/route';
import { ListPermissions } from '../../../../usecases/identity/identity.handlers';
import { inMemoryList } from '../../../../libs/http/src/list-query';

export const permissionAttributes = z.object({
  resource: z.string(),
  action: z.enum(['read', 'write']),
  roles: z.array(z.enum(PROJECT_ROLES)).describe('The built-in roles that hold this permission'),
  routes: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string() })).describe('The routes that need it'),
});

const listRoute = route({
  method: 'GET',
  path: '/v1/iam/permissions',
  summary: 'List the permission catalogue: every resource:action a route needs, its routes and the built-in roles holding it',
  description: 'Generated from the route declarations; a custom role grants permissions of this catalogue (or `resource:*`, `*:action`, `*`).',
  tag: 'Identity',
  auth: 'project',
  permission: 'roles:read',
  list: inMemoryList('permissions', ['permission', 'resource', 'action'], 'generated from the route declarations at start-up', 'permission'),
  query: z.object({ resource: z.string().min(1).max(64).optional(), role: z.enum(PROJECT_ROLES).optional() }),
  responses: { 200: collectionSchema('permissions', permissionAttributes) },
});

const permissionResource = (p: CataloguedPermission) => ({ id: p.permission, type: 'permissions', attributes: { resource: p.resource, action: p.action, roles: p.roles, routes: p.routes } });

@Controller()
export class IamPermissionsController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @ApiRoute(listRoute)
  async list(@Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListPermissions(list));
    return listResult(items.map(permissionResource), total);
  }
}
