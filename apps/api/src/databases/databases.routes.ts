import { modeOfScope } from '../../../../libs/domain/shared/scope';
import { Controller, Inject } from '@nestjs/common';
import { Query, QueryBus, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { DATABASE_ENGINES, databases, databaseUsername, type DatabaseEngine } from '../../../../libs/domain/databases/database.resource';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, toResource } from '../../../../libs/http/src/envelope';
import { badRequest } from '../../../../libs/application/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { listResult, type ListResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { databasesProjection } from '../../../../projections/databases/databases.projection';
import { CatalogValidation } from '../../../../usecases/catalog/catalog-validation';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';
import { offeredPlan } from '../common/offered-plan';
import { dataScopeOf } from '../common/resource-lifecycle';
import { resolveProvider } from '../../../../usecases/providers/resolve-provider';
import { PORTS } from '../tokens';
import type { PortsOf } from '../../../../libs/runtime/src/ports';
import { inMemoryList } from '../../../../libs/http/src/list-query';

/**
 * Managed databases (DECISIONS 14): create (202, a database.create job) with a generated password
 * shown once in the answer and kept in the credential vault, get, list, delete (202, database.delete).
 */
export const databaseRoutes: JobResourceRoutes<typeof databases.schema> = {
  resource: databases,
  projection: databasesProjection,
  type: 'databases',
  path: '/v1/databases',
  tag: 'Databases',
  permission: 'databases',
  capability: 'databases',
  summaries: {
    list: 'List the managed databases of the project',
    get: 'Get a managed database',
    create: 'Create a managed database (202, a database.create job); its password is in this answer only',
    delete: 'Delete a managed database (202, a database.delete job)',
  },
  // DECISIONS 14 lists `providerId?` among the create's fields: the body may name it as well as the query.
  body: databases.schema.omit({ username: true, credentialRef: true }).extend({ providerId: z.string().min(1).max(64).optional().describe('The provider (as `?providerId=`); by default the only enabled one that supports databases') }),
  // The region and plan in the provider's catalog (422), the version among those it lists for the engine (400).
  async prepare({ platform, provider, body, pointerPrefix }) {
    const catalog = new CatalogValidation(platform);
    const region = await catalog.resolveRegion(provider.name, String(body.region));
    const engine = body.engine as DatabaseEngine;
    const offered = (await platform.drivers.get(provider.name, modeOfScope(provider.projectId)).databaseVersions?.(engine)) ?? [];
    if (!offered.includes(String(body.version))) {
      const detail = offered.length ? `version ${String(body.version)} of ${engine} is not offered; use one of GET /v1/databases/versions?engine=${engine}: ${offered.join(', ')}` : `this provider offers no ${engine} version`;
      throw badRequest([{ detail, source: { pointer: `${pointerPrefix}/version` } }]);
    }
    const plan = await offeredPlan(catalog, provider.name, region.slug, String(body.plan), `${pointerPrefix}/plan`);
    return { ...(body as z.output<typeof databases.schema>), region: region.slug, plan: plan.slug, username: databaseUsername(engine), credentialRef: null };
  },
  // The generated password: in the vault, and in the create's answer this once.
  async secrets({ platform, projectId, body }) {
    const password = randomBytes(24).toString('base64url');
    const credentialRef = await platform.vault.put(projectId, { username: String(body.username), password });
    return { fields: { credentialRef }, reveal: { password } };
  },
  // Its plan's catalog price (DECISIONS 22).
  price: async ({ platform, provider, body, pointerPrefix }) => ({ resourceType: 'database', plan: await offeredPlan(new CatalogValidation(platform), provider.name, body.region, body.plan, `${pointerPrefix}/plan`) }),
};
export const DatabasesController = jobResourceController(databaseRoutes);

/** The versions the provider offers per engine (`?engine=` for one). */
export class ListDatabaseVersions extends Query<ListResult<object>> {
  constructor(readonly call: { principal: Principal | null; list: ListQuery<{ providerId?: string; engine?: DatabaseEngine }> }) {
    super();
  }
}

@QueryHandler(ListDatabaseVersions)
export class ListDatabaseVersionsHandler implements IQueryHandler<ListDatabaseVersions> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'drivers' | 'events' | 'projections'>) {}

  async execute({ call }: ListDatabaseVersions): Promise<ListResult<object>> {
    const { providerId, engine } = call.list.filters;
    const provider = await resolveProvider(this.ports, dataScopeOf(call.principal), providerId, 'databases');
    const driver = this.ports.drivers.get(provider.name, modeOfScope(provider.projectId));
    const all = [];
    for (const e of engine ? [engine] : DATABASE_ENGINES) for (const version of (await driver.databaseVersions?.(e)) ?? []) all.push({ engine: e, version });
    const page = all.slice(call.list.skip, call.list.skip + call.list.limit);
    return listResult(page.map((v) => toResource('database-versions', `${v.engine}-${v.version}`, v)), all.length);
  }
}

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
    return this.queries.execute(new ListDatabaseVersions({ principal, list }));
  }
}

export const DATABASE_HANDLERS = [ListDatabaseVersionsHandler];
