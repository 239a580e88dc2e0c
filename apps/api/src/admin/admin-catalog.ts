import { Controller, Inject, Req } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { priceOverrideSchema, type CatalogPrice } from '../../../../libs/domain/admin/settings';
import { PROVIDER_KINDS, type ProviderKind } from '../../../../libs/domain/providers/events';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { CatalogDoc } from '../../../../projections/catalog/catalog.projection';
import type { PlatformSettingsDoc } from '../../../../projections/platform-settings/platform-settings.projection';
import { loadProviderCatalog } from '../../../../usecases/catalog/catalog.service';
import { matches, page } from '../../../../usecases/catalog/catalog-views';
import { BusController } from '../common/bus-controller';
import { pathId } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { PORTS } from '../tokens';
import { loadSettings } from '../../../../usecases/admin/platform-settings';
import { ChangeSetting } from './settings';
import type { PortsOf } from '../../../../libs/runtime/src/ports';
import { inMemoryList } from '../../../../libs/http/src/list-query';

const TYPE = 'catalog-entries';
const ENTRY_TYPES = ['plan', 'instance-type', 'region', 'image', 'operating-system'] as const;
type EntryType = (typeof ENTRY_TYPES)[number];
const PRICED: readonly EntryType[] = ['plan', 'instance-type'];

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
type EntryAttributes = z.infer<typeof entryAttributes>;
type Entry = { id: string; type: string; attributes: EntryAttributes };

/** Every catalog entry of every provider as reported (one per id), with the admin's edits. */
function entriesOf(docs: CatalogDoc[], settings: PlatformSettingsDoc): Entry[] {
  const edits = new Map(settings.catalog.map((e) => [e.entryId, e]));
  const byId = new Map<string, Entry>();
  const add = (d: CatalogDoc, resourceType: EntryType, collection: string, x: { id: string; slug: string; name: string }, providerPricing: EntryAttributes['providerPricing']) => {
    const seen = byId.get(x.id);
    if (seen) {
      if (!seen.attributes.providerKinds.includes(d.kind)) seen.attributes.providerKinds.push(d.kind);
      return;
    }
    const edit = edits.get(x.id);
    const attributes: EntryAttributes = { resourceType, slug: x.slug, name: x.name, providerKinds: [d.kind], enabled: edit?.enabled ?? true, providerPricing, priceOverride: edit?.priceOverride ?? null, editedAt: edit?.updatedAt ?? null, createdAt: d.firstSeen[`${collection}:${x.slug}`] ?? d.createdAt };
    byId.set(x.id, { id: x.id, type: TYPE, attributes });
  };
  for (const d of docs) {
    const s = d.snapshot;
    for (const p of s.plans) add(d, 'plan', 'plans', p, p.pricing as { USD: CatalogPrice; NGN: CatalogPrice });
    for (const t of s.instanceTypes) add(d, 'instance-type', 'instanceTypes', t, { USD: { hourlyCents: t.hourlyCents } });
    for (const r of s.regions) add(d, 'region', 'regions', r, null);
    for (const i of s.images) add(d, 'image', 'images', i, null);
    for (const o of s.operatingSystems) add(d, 'operating-system', 'operatingSystems', o, null);
  }
  return [...byId.values()];
}

export class AdminCatalogEntries extends Query<Entry[]> {}

@QueryHandler(AdminCatalogEntries)
export class AdminCatalogEntriesHandler implements IQueryHandler<AdminCatalogEntries> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute(): Promise<Entry[]> {
    const [docs, settings] = await Promise.all([loadProviderCatalog(this.ports), loadSettings(this.ports)]);
    return entriesOf(docs, settings);
  }
}

export const ADMIN_CATALOG_HANDLERS = [AdminCatalogEntriesHandler];

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
