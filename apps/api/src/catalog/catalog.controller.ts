import { Controller, Inject } from '@nestjs/common';
import { QueryBus } from '../common/bus-controller';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { resourceSchema, collectionSchema } from '../../../../libs/http/src/envelope';
import { inMemoryList, type ListSpec } from '../../../../libs/http/src/list-query';
import { PROVIDER_KINDS } from '../../../../libs/domain/providers/events';
import { pathId } from '../common/resource-lifecycle';
import { CatalogQuery } from '../../../../usecases/catalog/catalog-query';
import { CATEGORIES, TIERS } from '../../../../usecases/catalog/catalog-views';

const attrs = z.record(z.string(), z.unknown());
const idParams = z.object({ id: pathId });
const providerQuery = z.object({ providerId: z.string().min(1).max(64).optional() });
/** Every catalog list sorts by createdAt too, newest first by default (DECISIONS 2). */
const list = (type: string, sortFields = ['name', 'createdAt']): ListSpec => inMemoryList(type, [...new Set([...sortFields, 'createdAt'])], 'small views derived from the catalog documents (one per provider kind), paged in memory');
const common = { tag: 'Catalog', auth: 'project' as const, permission: 'catalog:read' };

/** Catalog routes (spec 4.5): each maps HTTP to a CatalogQuery of the same name. */
const listPlansRoute = route({ ...common, method: 'GET', path: '/v1/plans', summary: 'List plans with specs, pricing (integer cents, USD and NGN) and regional availability', list: list('plans', ['name', 'createdAt', 'slug']), query: z.object({ category: z.enum(CATEGORIES).optional(), region: z.string().optional(), providerKind: z.enum(PROVIDER_KINDS).optional() }), responses: { 200: collectionSchema('plans', attrs) } });
const getPlanRoute = route({ ...common, method: 'GET', path: '/v1/plans/{id}', summary: 'Get a plan by slug or id', params: idParams, responses: { 200: resourceSchema('plans', attrs) } });
const listRegionsRoute = route({ ...common, method: 'GET', path: '/v1/regions', summary: 'List regions (city, country, site)', list: list('regions', ['name', 'createdAt', 'slug', 'country']), query: z.object({ providerKind: z.enum(PROVIDER_KINDS).optional(), macroregion: z.string().optional() }), responses: { 200: collectionSchema('regions', attrs) } });
const getRegionRoute = route({ ...common, method: 'GET', path: '/v1/regions/{id}', summary: 'Get a region by slug, id or site', params: idParams, responses: { 200: resourceSchema('regions', attrs) } });
const listOsRoute = route({ ...common, method: 'GET', path: '/v1/operating_systems', summary: 'List operating systems', list: list('operating-systems', ['name', 'createdAt', 'slug', 'family']), responses: { 200: collectionSchema('operating-systems', attrs) } });
const getOsRoute = route({ ...common, method: 'GET', path: '/v1/operating_systems/{id}', summary: 'Get an operating system by slug or id', params: idParams, responses: { 200: resourceSchema('operating-systems', attrs) } });
const listOsAliasRoute = route({ ...common, method: 'GET', path: '/v1/plans/operating_systems', summary: 'Alias of /v1/operating_systems (compatible provider API)', list: list('operating-systems', ['name', 'createdAt', 'slug', 'family']), responses: { 200: collectionSchema('operating-systems', attrs) } });
const getOsAliasRoute = route({ ...common, method: 'GET', path: '/v1/plans/operating-systems/{id}', summary: 'Alias of /v1/operating_systems/{id}', params: idParams, responses: { 200: resourceSchema('operating-systems', attrs) } });
const categoriesRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/categories', summary: 'Server categories', list: list('server-categories'), responses: { 200: collectionSchema('server-categories', attrs) } });
const tiersRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/tiers', summary: 'Server tiers', list: list('server-tiers'), responses: { 200: collectionSchema('server-tiers', attrs) } });
const macroregionsRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/macroregions', summary: 'Macroregions with their regions', list: list('macroregions'), responses: { 200: collectionSchema('macroregions', attrs) } });
const citiesRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/cities', summary: 'Cities, optionally of one macroregion or region', list: list('cities', ['name', 'country']), query: z.object({ region: z.string().optional() }), responses: { 200: collectionSchema('cities', attrs) } });
const serversRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/servers', summary: 'Server offers by category, tier and region', list: list('server-offers', ['name', 'createdAt', 'slug']), query: z.object({ category: z.enum(CATEGORIES).optional(), tier: z.enum(TIERS).optional(), region: z.string().optional() }), responses: { 200: collectionSchema('server-offers', attrs) } });
const serverRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/servers/{id}', summary: 'A server offer by slug or id', params: idParams, responses: { 200: resourceSchema('server-offers', attrs) } });
const osVersionsRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/os-versions', summary: 'Operating system versions, optionally for one category', list: list('os-versions', ['name', 'createdAt', 'slug', 'family']), query: z.object({ category: z.enum(CATEGORIES).optional() }), responses: { 200: collectionSchema('os-versions', attrs) } });
const billingOptionsRoute = route({ ...common, method: 'GET', path: '/v1/server-catalog/billing-options', summary: 'Billing periods (with prices when serverId is given)', list: list('billing-options', ['name']), query: z.object({ serverId: z.string().min(1).max(128).optional() }), responses: { 200: collectionSchema('billing-options', attrs) } });
const catalogRoute = route({ ...common, method: 'GET', path: '/v1/catalog', summary: "Instance types, regions and images of the project's enabled providers", responses: { 200: resourceSchema('catalog', attrs) } });
const allRoute = route({ ...common, method: 'GET', path: '/v1/catalog/all', summary: 'The complete catalog of every provider kind in one response', responses: { 200: resourceSchema('catalog', attrs) } });
const catalogInstanceTypesRoute = route({ ...common, method: 'GET', path: '/v1/catalog/instance-types', summary: 'Instance types, optionally of one provider', list: list('instance-types', ['name', 'createdAt', 'slug']), query: providerQuery, responses: { 200: collectionSchema('instance-types', attrs) } });
const catalogRegionsRoute = route({ ...common, method: 'GET', path: '/v1/catalog/regions', summary: 'Regions, optionally of one provider', list: list('regions', ['name', 'createdAt', 'slug']), query: providerQuery, responses: { 200: collectionSchema('regions', attrs) } });
const catalogImagesRoute = route({ ...common, method: 'GET', path: '/v1/catalog/images', summary: 'Images, optionally of one provider', list: list('images', ['name', 'createdAt', 'slug']), query: providerQuery, responses: { 200: collectionSchema('images', attrs) } });
const catalogResourcesRoute = route({ ...common, method: 'GET', path: '/v1/catalog/resources', summary: 'All catalog resources (instance types, regions, images)', list: list('catalog-resources', ['name', 'createdAt', 'slug', 'resourceType']), query: providerQuery, responses: { 200: collectionSchema('catalog-resources', attrs) } });
const catalogResourceRoute = route({ ...common, method: 'GET', path: '/v1/catalog/resources/{id}', summary: 'A catalog resource by id or slug', params: idParams, responses: { 200: resourceSchema('catalog-resources', attrs) } });
const catalogRegionRoute = route({ ...common, method: 'GET', path: '/v1/catalog/regions/{id}', summary: 'A region with its zones and the providers offering it', params: idParams, responses: { 200: resourceSchema('regions', attrs) } });
const availabilityRoute = route({ ...common, method: 'GET', path: '/v1/catalog/availability', summary: 'Availability matrix of plans across regions and providers', list: list('availability', ['plan', 'region', 'providerKind']), query: z.object({ plan: z.string().optional(), region: z.string().optional(), providerKind: z.enum(PROVIDER_KINDS).optional(), available: z.enum(['true', 'false']).optional() }), responses: { 200: collectionSchema('availability', attrs) } });

@Controller()
export class CatalogController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @ApiRoute(listPlansRoute)
  listPlans(@Parsed('list') q: RouteInput<typeof listPlansRoute>['list']) {
    return this.queries.execute(new CatalogQuery('listPlans', [q]));
  }

  @ApiRoute(getPlanRoute)
  getPlan(@Parsed('params') p: RouteInput<typeof getPlanRoute>['params']) {
    return this.queries.execute(new CatalogQuery('getPlan', [p]));
  }

  @ApiRoute(listRegionsRoute)
  listRegions(@Parsed('list') q: RouteInput<typeof listRegionsRoute>['list']) {
    return this.queries.execute(new CatalogQuery('listRegions', [q]));
  }

  @ApiRoute(getRegionRoute)
  getRegion(@Parsed('params') p: RouteInput<typeof getRegionRoute>['params']) {
    return this.queries.execute(new CatalogQuery('getRegion', [p]));
  }

  @ApiRoute(listOsRoute)
  listOs(@Parsed('list') q: RouteInput<typeof listOsRoute>['list']) {
    return this.queries.execute(new CatalogQuery('listOs', [q]));
  }

  @ApiRoute(getOsRoute)
  getOs(@Parsed('params') p: RouteInput<typeof getOsRoute>['params']) {
    return this.queries.execute(new CatalogQuery('getOs', [p]));
  }

  @ApiRoute(listOsAliasRoute)
  listOsAlias(@Parsed('list') q: RouteInput<typeof listOsAliasRoute>['list']) {
    return this.queries.execute(new CatalogQuery('listOsAlias', [q]));
  }

  @ApiRoute(getOsAliasRoute)
  getOsAlias(@Parsed('params') p: RouteInput<typeof getOsAliasRoute>['params']) {
    return this.queries.execute(new CatalogQuery('getOsAlias', [p]));
  }

  @ApiRoute(categoriesRoute)
  categories(@Parsed('list') q: RouteInput<typeof categoriesRoute>['list']) {
    return this.queries.execute(new CatalogQuery('categories', [q]));
  }

  @ApiRoute(tiersRoute)
  tiers(@Parsed('list') q: RouteInput<typeof tiersRoute>['list']) {
    return this.queries.execute(new CatalogQuery('tiers', [q]));
  }

  @ApiRoute(macroregionsRoute)
  macroregions(@Parsed('list') q: RouteInput<typeof macroregionsRoute>['list']) {
    return this.queries.execute(new CatalogQuery('macroregions', [q]));
  }

  @ApiRoute(citiesRoute)
  cities(@Parsed('list') q: RouteInput<typeof citiesRoute>['list']) {
    return this.queries.execute(new CatalogQuery('cities', [q]));
  }

  @ApiRoute(serversRoute)
  servers(@Parsed('list') q: RouteInput<typeof serversRoute>['list']) {
    return this.queries.execute(new CatalogQuery('servers', [q]));
  }

  @ApiRoute(serverRoute)
  server(@Parsed('params') p: RouteInput<typeof serverRoute>['params']) {
    return this.queries.execute(new CatalogQuery('server', [p]));
  }

  @ApiRoute(osVersionsRoute)
  osVersions(@Parsed('list') q: RouteInput<typeof osVersionsRoute>['list']) {
    return this.queries.execute(new CatalogQuery('osVersions', [q]));
  }

  @ApiRoute(billingOptionsRoute)
  billingOptions(@Parsed('list') q: RouteInput<typeof billingOptionsRoute>['list']) {
    return this.queries.execute(new CatalogQuery('billingOptions', [q]));
  }

  @ApiRoute(catalogRoute)
  catalog(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new CatalogQuery('catalog', [principal]));
  }

  @ApiRoute(allRoute)
  all() {
    return this.queries.execute(new CatalogQuery('all', []));
  }

  @ApiRoute(catalogInstanceTypesRoute)
  catalogInstanceTypes(@CurrentPrincipal() principal: Principal, @Parsed('list') q: RouteInput<typeof catalogInstanceTypesRoute>['list']) {
    return this.queries.execute(new CatalogQuery('catalogInstanceTypes', [principal, q]));
  }

  @ApiRoute(catalogRegionsRoute)
  catalogRegions(@CurrentPrincipal() principal: Principal, @Parsed('list') q: RouteInput<typeof catalogRegionsRoute>['list']) {
    return this.queries.execute(new CatalogQuery('catalogRegions', [principal, q]));
  }

  @ApiRoute(catalogImagesRoute)
  catalogImages(@CurrentPrincipal() principal: Principal, @Parsed('list') q: RouteInput<typeof catalogImagesRoute>['list']) {
    return this.queries.execute(new CatalogQuery('catalogImages', [principal, q]));
  }

  @ApiRoute(catalogResourcesRoute)
  catalogResources(@CurrentPrincipal() principal: Principal, @Parsed('list') q: RouteInput<typeof catalogResourcesRoute>['list']) {
    return this.queries.execute(new CatalogQuery('catalogResources', [principal, q]));
  }

  @ApiRoute(catalogResourceRoute)
  catalogResource(@Parsed('params') p: RouteInput<typeof catalogResourceRoute>['params']) {
    return this.queries.execute(new CatalogQuery('catalogResource', [p]));
  }

  @ApiRoute(catalogRegionRoute)
  catalogRegion(@CurrentPrincipal() principal: Principal, @Parsed('params') p: RouteInput<typeof catalogRegionRoute>['params']) {
    return this.queries.execute(new CatalogQuery('catalogRegion', [principal, p]));
  }

  @ApiRoute(availabilityRoute)
  availability(@Parsed('list') q: RouteInput<typeof availabilityRoute>['list']) {
    return this.queries.execute(new CatalogQuery('availability', [q]));
  }
}
