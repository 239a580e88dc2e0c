import { Controller, Inject } from '@nestjs/common';
import { QueryBus } from '../common/bus-controller';
import { z } from 'zod';
import { DATABASE_ENGINES, databases } from '../../../../libs/domain/databases/database.resource';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { inMemoryList } from '../../../../libs/http/src/list-query';
import { databaseResource, ListDatabaseVersions } from '../../../../usecases/databases/databases';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';
import { dataScopeOf } from '../common/resource-lifecycle';

/**
 * Managed databases (DECISIONS 14): create (202, a database.create job) with a generated password
 * shown once in the answer and kept in the credential vault, get, list, delete (202, database.delete).
 */
export const databaseRoutes: JobResourceRoutes<typeof databases.schema> = {
  ...databaseResource,
  path: '/v1/databases',
  tag: 'Databases',
  permission: 'databases',
  summaries: {
    list: 'List the managed databases of the project',
    get: 'Get a managed database',
    create: 'Create a managed database (202, a database.create job); its password is in this answer only',
    delete: 'Delete a managed database (202, a database.delete job)',
  },
  // DECISIONS 14 lists `providerId?` among the create's fields: the body may name it as well as the query.
  body: databases.schema.omit({ username: true, credentialRef: true }).extend({ providerId: z.string().min(1).max(64).optional().describe('The provider (as `?providerId=`); by default the only enabled one that supports databases') }),
};
export const DatabasesController = jobResourceController(databaseRoutes);

const versionsRoute = route({
  method: 'GET',
  path: '/v1/databases/versions',
  summary: 'The engine versions a managed database may run at the provider',
  tag: 'Databases',
  auth: 'project',
  permission: 'databases:read',
  query: z.object({
    providerId: z.string().min(1).max(64).optional().describe('The provider (DECISIONS 14); by default the only one that offers databases'),
    engine: z.enum(DATABASE_ENGINES).optional(),
  }),
  list: inMemoryList('database-versions', ['engine'], 'the provider\'s answer', 'engine'),
  responses: { 200: collectionSchema('database-versions', z.object({ engine: z.enum(DATABASE_ENGINES), version: z.string() })) },
});

@Controller()
export class DatabaseVersionsController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @ApiRoute(versionsRoute)
  versions(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof versionsRoute>['list']) {
    return this.queries.execute(new ListDatabaseVersions({ projectId: dataScopeOf(principal), list }));
  }
}

