/**
 * Every list route's sort fields come from its read model's declared list shapes (listOf), whose
 * indexes serve each of them both ways and the default (projections/list-indexes.spec.ts proves the
 * shapes covered; this proves the routes run as those shapes), or the route says, in one place,
 * why it is sorted in memory (inMemoryList).
 */
import './routes';
import { routeRegistry } from '../../../libs/http/src/route';
import { unservedSorts } from '../../../libs/http/src/list-query';
import { uncoveredShapes, type ListShape } from '../../../libs/readstore/src/list-shapes';
import { PROJECTIONS } from '../../../contexts/registrations';

const lists = routeRegistry().filter((r) => r.list).map((r) => ({ route: `${r.method} ${r.routePath}`, list: r.list! }));
const modelOf = new Map<ListShape, (typeof PROJECTIONS)[number]>(PROJECTIONS.flatMap((p) => (p.lists ?? []).map((s) => [s, p] as const)));

describe('list routes', () => {
  it('are all registered', () => {
    expect(lists.length).toBeGreaterThan(60);
  });

  it.each(lists.filter((l) => 'shapes' in l.list.order))('$route runs as list shapes of a registered read model, covered by its indexes', ({ list }) => {
    const { shapes } = list.order as { shapes: readonly ListShape[] };
    expect(shapes.length).toBeGreaterThan(0);
    for (const shape of shapes) {
      const model = modelOf.get(shape);
      expect({ query: shape.query, model: model?.name }).toEqual({ query: shape.query, model: expect.any(String) });
      expect(uncoveredShapes(model!.indexes ?? [], [shape])).toEqual([]);
    }
    expect(unservedSorts(list)).toEqual([]);
  });

  it('sorted in memory only where a route says why, and these are the ones', () => {
    const inMemory = lists.filter((l) => 'inMemory' in l.list.order);
    for (const l of inMemory) expect((l.list.order as { inMemory: string }).inMemory.length).toBeGreaterThan(10);
    // Catalog views, generated catalogues, provider answers, and lists merged or computed in memory.
    expect(inMemory.map((l) => l.route).sort()).toEqual([
      'GET /v1/admin/catalog/resources',
      'GET /v1/billing/usage',
      'GET /v1/billing/wallets',
      'GET /v1/catalog/availability',
      'GET /v1/catalog/images',
      'GET /v1/catalog/instance-types',
      'GET /v1/catalog/regions',
      'GET /v1/catalog/resources',
      'GET /v1/databases/versions',
      'GET /v1/iam/permissions',
      'GET /v1/iam/roles',
      'GET /v1/iam/usage',
      'GET /v1/kubernetes/versions',
      'GET /v1/notifications/events',
      'GET /v1/operating_systems',
      'GET /v1/plans',
      'GET /v1/plans/operating_systems',
      'GET /v1/regions',
      'GET /v1/server-catalog/billing-options',
      'GET /v1/server-catalog/categories',
      'GET /v1/server-catalog/cities',
      'GET /v1/server-catalog/macroregions',
      'GET /v1/server-catalog/os-versions',
      'GET /v1/server-catalog/servers',
      'GET /v1/server-catalog/tiers',
    ]);
  });
});
