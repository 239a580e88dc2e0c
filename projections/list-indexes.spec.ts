/**
 * Every list shape a read model declares (`lists`: what its list routes and polls query) is covered
 * by one of its declared indexes: [equality fields, any order] + the sort (minus fields an equality
 * fixes) in its directions or all reversed + id. MongoDB then sorts nothing in memory, and the
 * in-memory store walks that index from the page's position.
 */
import { MemoryReadCollection } from '../libs/readstore/src/memory-read-store';
import { coveringIndex, indexOn, shapeSorts, uncoveredShapes, type ListShape } from '../libs/readstore/src/list-shapes';
import type { Filter, IndexSpec, SortKey } from '../libs/readstore/src/read-store.port';

import { PROJECTIONS } from '../contexts/registrations';

const show = (sort: SortKey[]) => sort.map((k) => `${k.direction === -1 ? '-' : ''}${k.field}`).join(',');
const cases = PROJECTIONS.flatMap((p) => (p.lists ?? []).flatMap((shape) => shapeSorts(shape).map((sort) => ({ p, shape, sort, title: `${p.name}: ${shape.query} sorted ${show(sort)}` }))));

describe('list indexes', () => {
  it('the read models behind list routes declare their list shapes', () => {
    // Every registered model but the catalog (small derived views, paged in memory), batches, exchange rates and the gateway's waterfalls (read by id only) and the platform settings (one document).
    const silent = PROJECTIONS.filter((p) => (p.lists ?? []).length === 0).map((p) => p.name);
    expect(silent.sort()).toEqual(['batches', 'catalog', 'exchange_rates', 'gateway_waterfalls', 'platform_settings']);
    expect(cases.length).toBeGreaterThan(50);
  });

  it('every declared list shape, in each of its sorts, is covered by a declared index', () => {
    const uncovered = PROJECTIONS.flatMap((p) => uncoveredShapes(p.indexes ?? [], p.lists ?? []).map((m) => `${p.name}: ${m}`));
    expect(uncovered).toEqual([]);
  });

  it.each(cases)('the memory store reads $title from an index, total from range sizes', async ({ p, shape, sort }) => {
    const c = new MemoryReadCollection(`${p.name}_shapes`);
    await c.ensureIndexes(p.indexes ?? []);
    const filter: Filter = Object.fromEntries(shape.equal.map((f) => [f, 'v']));
    expect(c.explain({ filter, sort, skip: 40, limit: 20 })).toMatchObject({ plan: 'index', residual: [], total: 'ranges' });
    // the residual filters are checked on the way, in the same index order
    for (const f of shape.residual ?? []) expect(c.explain({ filter: { ...filter, [f]: { $ne: 'x' } }, sort, limit: 20 })).toMatchObject({ plan: 'index', residual: [f] });
  });
});

describe('coveringIndex', () => {
  const shape: ListShape = { query: 'GET /v1/widgets', equal: ['projectId', 'status'], sortable: ['name'] };

  it('needs the equality fields (any order), then the sort in its directions, then id', () => {
    expect(coveringIndex([indexOn('status', 'projectId', 'name', 'id')], shape, [{ field: 'name', direction: 1 }])).toBeDefined();
    expect(coveringIndex([indexOn('projectId', 'status', '-name', 'id')], shape, [{ field: 'name', direction: -1 }])).toBeDefined();
    // a sort on a field an equality fixes needs only the id after the equalities
    expect(coveringIndex([indexOn('projectId', 'status', 'id')], shape, [{ field: 'status', direction: -1 }])).toBeDefined();
    // walked backwards: every direction reversed, the id's included
    expect(coveringIndex([indexOn('projectId', 'status', '-name', 'id')], shape, [{ field: 'name', direction: 1 }, { field: 'id', direction: -1 }])).toBeDefined();
  });

  const uncovered: Array<[string, IndexSpec[], SortKey[]]> = [
    ['no id at the end (the tie-breaker every find appends)', [indexOn('projectId', 'status', 'name')], [{ field: 'name', direction: 1 }]],
    ['the sort field reversed but not the id', [indexOn('projectId', 'status', '-name', 'id')], [{ field: 'name', direction: 1 }]],
    ['an equality field missing from the prefix', [indexOn('projectId', 'name', 'id')], [{ field: 'name', direction: 1 }]],
    ['the sort field before an equality field', [indexOn('projectId', 'name', 'status', 'id')], [{ field: 'name', direction: 1 }]],
    ['an extra field between the sort and the id', [indexOn('projectId', 'status', 'name', 'createdAt', 'id')], [{ field: 'name', direction: 1 }]],
  ];
  it.each(uncovered)('is not covered by %s', (_title, indexes, sort) => {
    expect(coveringIndex(indexes, shape, sort)).toBeUndefined();
  });

  it('reports each uncovered sort of a shape, the default -createdAt included', () => {
    const widgets: ListShape = { query: 'GET /v1/widgets', equal: ['projectId'], sortable: ['name', 'createdAt'] };
    const indexes = [indexOn('projectId', 'name', 'id'), indexOn('projectId', '-name', 'id'), indexOn('projectId', 'createdAt', 'id')];
    expect(uncoveredShapes(indexes, [widgets])).toEqual([
      'GET /v1/widgets: equal [projectId] sort -createdAt: no index is [projectId] (any order) + -createdAt (or reversed) + id',
      'GET /v1/widgets: equal [projectId] sort -createdAt: no index is [projectId] (any order) + -createdAt (or reversed) + id',
    ]);
    expect(uncoveredShapes([...indexes, indexOn('projectId', '-createdAt', 'id')], [widgets])).toEqual([]);
  });
});
