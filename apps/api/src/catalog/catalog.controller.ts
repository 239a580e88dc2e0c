import { Controller, Inject } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { resourceSchema, collectionSchema } from '../../../../libs/http/src/envelope';
import type { ListQuery, ListSpec } from '../../../../libs/http/src/list-query';
import { PROVIDER_KINDS, type ProviderKind } from '../../../../libs/domain/providers/events';
import type { ServerCategory } from '../../../../libs/providers/src/catalog.types';
import { pathId } from '../common/resource-lifecycle';
import { CatalogQuery } from './catalog.queries';
import { CATEGORIES, TIERS } from './catalog.views';

const attrs = z.record(z.string(), z.unknown());
const idParams = z.object({ id: pathId });
const providerQuery = z.object({ providerId: z.string().min(1).max(64).optional() });
/** Every catalog list sorts by createdAt too, newest first by default (DECISIONS 2). */
const list = (type: string, sortFields = ['name', 'createdAt']): ListSpec => ({ type, sortFields: [...new Set([...sortFields, 'createdAt'])], defaultSort: '-createdAt' });
const common = { tag: 'Catalog', auth: 'project' as const, permission: 'catalog:read' };

/** Catalog routes (spec 4.5): each maps HTTP to a CatalogQuery of the same name. */
@Controller()
export class CatalogController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @ApiRoute({ ...common, method: 'GET', path: '/v1/plans', summary: 'List plans with specs, pricing (integer cents, USD and NGN) and regional availability', list: list('plans', ['name', 'createdAt', 'slug']), query: z.object({ category: z.enum(CATEGORIES).optional(), region: z.string().optional(), providerKind: z.enum(PROVIDER_KINDS).optional() }), responses: { 200: collectionSchema('plans', attrs) } })
  listPlans(@Parsed('list') q: ListQuery<{ category?: string; region?: string; providerKind?: ProviderKind }>) {
    return this.queries.execute(new CatalogQuery('listPlans', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/plans/{id}', summary: 'Get a plan by slug or id', params: idParams, responses: { 200: resourceSchema('plans', attrs) } })
  getPlan(@Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('getPlan', [p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/regions', summary: 'List regions (city, country, site)', list: list('regions', ['name', 'createdAt', 'slug', 'country']), query: z.object({ providerKind: z.enum(PROVIDER_KINDS).optional(), macroregion: z.string().optional() }), responses: { 200: collectionSchema('regions', attrs) } })
  listRegions(@Parsed('list') q: ListQuery<{ providerKind?: ProviderKind; macroregion?: string }>) {
    return this.queries.execute(new CatalogQuery('listRegions', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/regions/{id}', summary: 'Get a region by slug, id or site', params: idParams, responses: { 200: resourceSchema('regions', attrs) } })
  getRegion(@Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('getRegion', [p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/operating_systems', summary: 'List operating systems', list: list('operating-systems', ['name', 'createdAt', 'slug', 'family']), responses: { 200: collectionSchema('operating-systems', attrs) } })
  listOs(@Parsed('list') q: ListQuery<unknown>) {
    return this.queries.execute(new CatalogQuery('listOs', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/operating_systems/{id}', summary: 'Get an operating system by slug or id', params: idParams, responses: { 200: resourceSchema('operating-systems', attrs) } })
  getOs(@Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('getOs', [p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/plans/operating_systems', summary: 'Alias of /v1/operating_systems (compatible provider API)', list: list('operating-systems', ['name', 'createdAt', 'slug', 'family']), responses: { 200: collectionSchema('operating-systems', attrs) } })
  listOsAlias(@Parsed('list') q: ListQuery<unknown>) {
    return this.queries.execute(new CatalogQuery('listOsAlias', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/plans/operating-systems/{id}', summary: 'Alias of /v1/operating_systems/{id}', params: idParams, responses: { 200: resourceSchema('operating-systems', attrs) } })
  getOsAlias(@Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('getOsAlias', [p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/categories', summary: 'Server categories', list: list('server-categories'), responses: { 200: collectionSchema('server-categories', attrs) } })
  categories(@Parsed('list') q: ListQuery<unknown>) {
    return this.queries.execute(new CatalogQuery('categories', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/tiers', summary: 'Server tiers', list: list('server-tiers'), responses: { 200: collectionSchema('server-tiers', attrs) } })
  tiers(@Parsed('list') q: ListQuery<unknown>) {
    return this.queries.execute(new CatalogQuery('tiers', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/macroregions', summary: 'Macroregions with their regions', list: list('macroregions'), responses: { 200: collectionSchema('macroregions', attrs) } })
  macroregions(@Parsed('list') q: ListQuery<unknown>) {
    return this.queries.execute(new CatalogQuery('macroregions', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/cities', summary: 'Cities, optionally of one macroregion or region', list: list('cities', ['name', 'country']), query: z.object({ region: z.string().optional() }), responses: { 200: collectionSchema('cities', attrs) } })
  cities(@Parsed('list') q: ListQuery<{ region?: string }>) {
    return this.queries.execute(new CatalogQuery('cities', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/servers', summary: 'Server offers by category, tier and region', list: list('server-offers', ['name', 'createdAt', 'slug']), query: z.object({ category: z.enum(CATEGORIES).optional(), tier: z.enum(TIERS).optional(), region: z.string().optional() }), responses: { 200: collectionSchema('server-offers', attrs) } })
  servers(@Parsed('list') q: ListQuery<{ category?: string; tier?: string; region?: string }>) {
    return this.queries.execute(new CatalogQuery('servers', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/servers/{id}', summary: 'A server offer by slug or id', params: idParams, responses: { 200: resourceSchema('server-offers', attrs) } })
  server(@Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('server', [p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/os-versions', summary: 'Operating system versions, optionally for one category', list: list('os-versions', ['name', 'createdAt', 'slug', 'family']), query: z.object({ category: z.enum(CATEGORIES).optional() }), responses: { 200: collectionSchema('os-versions', attrs) } })
  osVersions(@Parsed('list') q: ListQuery<{ category?: ServerCategory }>) {
    return this.queries.execute(new CatalogQuery('osVersions', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/server-catalog/billing-options', summary: 'Billing periods (with prices when serverId is given)', list: list('billing-options', ['name']), query: z.object({ serverId: z.string().min(1).max(128).optional() }), responses: { 200: collectionSchema('billing-options', attrs) } })
  billingOptions(@Parsed('list') q: ListQuery<{ serverId?: string }>) {
    return this.queries.execute(new CatalogQuery('billingOptions', [q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog', summary: "Instance types, regions and images of the project's enabled providers", responses: { 200: resourceSchema('catalog', attrs) } })
  catalog(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new CatalogQuery('catalog', [principal]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/all', summary: 'The complete catalog of every provider kind in one response', responses: { 200: resourceSchema('catalog', attrs) } })
  all() {
    return this.queries.execute(new CatalogQuery('all', []));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/instance-types', summary: 'Instance types, optionally of one provider', list: list('instance-types', ['name', 'createdAt', 'slug']), query: providerQuery, responses: { 200: collectionSchema('instance-types', attrs) } })
  catalogInstanceTypes(@CurrentPrincipal() principal: Principal, @Parsed('list') q: ListQuery<{ providerId?: string }>) {
    return this.queries.execute(new CatalogQuery('catalogInstanceTypes', [principal, q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/regions', summary: 'Regions, optionally of one provider', list: list('regions', ['name', 'createdAt', 'slug']), query: providerQuery, responses: { 200: collectionSchema('regions', attrs) } })
  catalogRegions(@CurrentPrincipal() principal: Principal, @Parsed('list') q: ListQuery<{ providerId?: string }>) {
    return this.queries.execute(new CatalogQuery('catalogRegions', [principal, q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/images', summary: 'Images, optionally of one provider', list: list('images', ['name', 'createdAt', 'slug']), query: providerQuery, responses: { 200: collectionSchema('images', attrs) } })
  catalogImages(@CurrentPrincipal() principal: Principal, @Parsed('list') q: ListQuery<{ providerId?: string }>) {
    return this.queries.execute(new CatalogQuery('catalogImages', [principal, q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/resources', summary: 'All catalog resources (instance types, regions, images)', list: list('catalog-resources', ['name', 'createdAt', 'slug', 'resourceType']), query: providerQuery, responses: { 200: collectionSchema('catalog-resources', attrs) } })
  catalogResources(@CurrentPrincipal() principal: Principal, @Parsed('list') q: ListQuery<{ providerId?: string }>) {
    return this.queries.execute(new CatalogQuery('catalogResources', [principal, q]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/resources/{id}', summary: 'A catalog resource by id or slug', params: idParams, responses: { 200: resourceSchema('catalog-resources', attrs) } })
  catalogResource(@Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('catalogResource', [p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/regions/{id}', summary: 'A region with its zones and the providers offering it', params: idParams, responses: { 200: resourceSchema('regions', attrs) } })
  catalogRegion(@CurrentPrincipal() principal: Principal, @Parsed('params') p: z.infer<typeof idParams>) {
    return this.queries.execute(new CatalogQuery('catalogRegion', [principal, p]));
  }

  @ApiRoute({ ...common, method: 'GET', path: '/v1/catalog/availability', summary: 'Availability matrix of plans across regions and providers', list: list('availability', ['plan', 'region', 'providerKind']), query: z.object({ plan: z.string().optional(), region: z.string().optional(), providerKind: z.enum(PROVIDER_KINDS).optional(), available: z.enum(['true', 'false']).optional() }), responses: { 200: collectionSchema('availability', attrs) } })
  availability(@Parsed('list') q: ListQuery<{ plan?: string; region?: string; providerKind?: ProviderKind; available?: 'true' | 'false' }>) {
    return this.queries.execute(new CatalogQuery('availability', [q]));
  }
}
