import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { priceOverrideSchema } from '../../../../libs/domain/admin/settings';
import { PROVIDER_KINDS, type ProviderKind } from '../../../../libs/domain/providers/events';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { matches, page } from '../../../../usecases/catalog/catalog-views';
import { BusController } from '../common/bus-controller';
import { pathId } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { ChangeSetting } from '../../../../usecases/admin/settings';
import { AdminCatalogEntries, CATALOG_ENTRY_TYPE, ENTRY_TYPES, PRICED, type Entry } from '../../../../usecases/admin/catalog-entries';
import { inMemoryList } from '../../../../libs/http/src/list-query';

const TYPE = CATALOG_ENTRY_TYPE;
const priceShape = z.object({ hourlyCents: z.number().int(), monthlyCents: z.number().int().optional(), yearlyCents: z.number().int().optional() });
const entryAttributes = z.object({
  resourceType: z.enum(ENTRY_TYPES),
  slug: z.string(),
  name: z.string(),
  providerKinds: z.array(z.enum(PROVIDER_KINDS)),
  enabled: z.boolean().describe('A disabled entry is hidden from customers and refused on creates'),
  providerPricing: z.object({ USD: priceShape, NGN: priceShape.optional() }).nullable().describe('As the provider reported it (no margin); null for entries without a price'),
  priceOverride: priceOverrideSchema.nullable().describe("The admin's price, replacing the provider's before the margin"),
  editedAt: z.string().nullable(),
  createdAt: z.string(),
});


const common = { tag: 'Admin', auth: 'admin' } as const;
const idParams = z.object({ id: pathId });
const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/admin/catalog/resources',
  summary: "Every catalog entry (plans, instance types, regions, images, operating systems) with the provider's prices and the admin's edits (platform admin)",
  list: inMemoryList(TYPE, ['createdAt', 'name', 'slug', 'resourceType'], 'derived from the catalog documents (one per provider kind) and the admin\'s edits'),
  query: z.object({ resourceType: z.enum(ENTRY_TYPES).optional(), providerKind: z.enum(PROVIDER_KINDS).optional(), enabled: z.enum(['true', 'false']).optional() }),
  responses: { 200: collectionSchema(TYPE, entryAttributes) },
});
const getRoute = route({ ...common, method: 'GET', path: '/v1/admin/catalog/{id}', summary: 'A catalog entry by id or slug, as the provider reported it, with the admin\'s edits (platform admin)', params: idParams, responses: { 200: resourceSchema(TYPE, entryAttributes) } });
const editRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/admin/catalog/{id}',
  summary: 'Enable or disable a catalog entry, or override its price (platform admin; event-sourced)',
  description: 'A price override applies to plans and instance types (400 for others) and replaces the provider price per currency; the margin is added on top for customers. `priceOverride: null` removes it.',
  type: TYPE,
  params: idParams,
  body: z
    .object({ enabled: z.boolean().optional(), priceOverride: priceOverrideSchema.nullable().optional() })
    .strict()
    .refine((b) => b.enabled !== undefined || b.priceOverride !== undefined, { message: 'Give enabled, priceOverride or both' })
    .meta({ minProperties: 1 }),
  responses: { 200: resourceSchema(TYPE, entryAttributes) },
});

const find = (entries: Entry[], ref: string) => {
  const entry = entries.find((e) => matches({ id: e.id, slug: e.attributes.slug }, ref));
  if (!entry) throw notFound(`Catalog entry ${ref} not found`);
  return entry;
};

/** Admin catalog (spec 4.17): the provider's view of the catalog and the admin's edits on the settings stream. */
@Controller()
export class AdminCatalogController extends BusController {
  @ApiRoute(listRoute)
  async list(@Parsed('list') q: RouteInput<typeof listRoute>['list']) {
    const { resourceType, providerKind, enabled } = q.filters;
    const entries = (await this.queries.execute(new AdminCatalogEntries())).filter(
      (e) => (!resourceType || e.attributes.resourceType === resourceType) && (!providerKind || e.attributes.providerKinds.includes(providerKind as ProviderKind)) && (!enabled || String(e.attributes.enabled) === enabled),
    );
    return page(entries as never, q as ListQuery<unknown>);
  }

  @ApiRoute(getRoute)
  async get(@Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    const e = find(await this.queries.execute(new AdminCatalogEntries()), params.id);
    return resource(TYPE, e.id, e.attributes);
  }

  @ApiRoute(editRoute)
  async edit(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof editRoute>['params'], @Parsed('body') body: RouteInput<typeof editRoute>['body']) {
    const e = find(await this.queries.execute(new AdminCatalogEntries()), params.id);
    const type = e.attributes.resourceType;
    await this.commands.execute(new ChangeSetting({ type: 'UpdateCatalogEntry', entryId: e.id, entryType: type, priced: PRICED.includes(type), enabled: body.enabled, priceOverride: body.priceOverride }, commandContext(req, p)));
    const after = find(await this.queries.execute(new AdminCatalogEntries()), e.id);
    return resource(TYPE, after.id, after.attributes);
  }
}
