import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { modeOfScope } from '../../libs/domain/shared/scope';
import { DATABASE_ENGINES, databases, databaseUsername, type DatabaseEngine } from '../../libs/domain/databases/database.resource';
import { badRequest } from '../../libs/application/src/errors';
import { listResult, toResource, type ListQuery, type ListResult } from '../../libs/application/src/views';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { databasesProjection } from '../../projections/databases/databases.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { offeredPlan } from '../catalog/offered-plan';
import { InjectPorts } from '../inject-ports';
import { resolveProvider } from '../providers/resolve-provider';
import type { JobResourceUseCase } from '../resources/job-resources';

/**
 * Managed databases (DECISIONS 14): created by a database.create job with a generated password shown
 * once in the create's answer and kept in the credential vault; deleted by a database.delete job.
 */
export const databaseResource = {
  resource: databases,
  projection: databasesProjection,
  type: 'databases',
  capability: 'databases',
  // The region and plan in the provider's catalog (422), the version among those it lists for the engine (400).
  async prepare({ ports, provider, body }) {
    const catalog = new CatalogValidation(ports);
    const region = await catalog.resolveRegion(provider.name, String(body.region));
    const engine = body.engine as DatabaseEngine;
    const offered = (await ports.drivers.get(provider.name, modeOfScope(provider.projectId)).databaseVersions?.(engine)) ?? [];
    if (!offered.includes(String(body.version))) {
      const detail = offered.length ? `version ${String(body.version)} of ${engine} is not offered; use one of GET /v1/databases/versions?engine=${engine}: ${offered.join(', ')}` : `this provider offers no ${engine} version`;
      throw badRequest([{ detail, source: { pointer: '/version' } }]);
    }
    const plan = await offeredPlan(catalog, provider.name, region.slug, String(body.plan), '/plan');
    return { ...(body as z.output<typeof databases.schema>), region: region.slug, plan: plan.slug, username: databaseUsername(engine), credentialRef: null };
  },
  // The generated password: in the vault, and in the create's answer this once.
  async secrets({ ports, projectId, body }) {
    const password = randomBytes(24).toString('base64url');
    const credentialRef = await ports.vault.put(projectId, { username: String(body.username), password });
    return { fields: { credentialRef }, reveal: { password } };
  },
  // Its plan's catalog price (DECISIONS 22).
  price: async ({ ports, provider, body }) => ({ resourceType: 'database', plan: await offeredPlan(new CatalogValidation(ports), provider.name, body.region, body.plan, '/plan') }),
} satisfies JobResourceUseCase<typeof databases.schema>;

/** The versions the provider offers per engine (`engine` for one), in the caller's data scope. */
export class ListDatabaseVersions extends Query<ListResult<object>> {
  constructor(readonly call: { projectId: string; list: ListQuery<{ providerId?: string; engine?: DatabaseEngine }> }) {
    super();
  }
}

@QueryHandler(ListDatabaseVersions)
export class ListDatabaseVersionsHandler implements IQueryHandler<ListDatabaseVersions> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'drivers' | 'events' | 'projections'>) {}

  async execute({ call }: ListDatabaseVersions): Promise<ListResult<object>> {
    const { providerId, engine } = call.list.filters;
    const provider = await resolveProvider(this.ports, call.projectId, providerId, 'databases');
    const driver = this.ports.drivers.get(provider.name, modeOfScope(provider.projectId));
    const all = [];
    for (const e of engine ? [engine] : DATABASE_ENGINES) for (const version of (await driver.databaseVersions?.(e)) ?? []) all.push({ engine: e, version });
    const page = all.slice(call.list.skip, call.list.skip + call.list.limit);
    return listResult(page.map((v) => toResource('database-versions', `${v.engine}-${v.version}`, v)), all.length);
  }
}

export const DATABASE_HANDLERS = [ListDatabaseVersionsHandler];
