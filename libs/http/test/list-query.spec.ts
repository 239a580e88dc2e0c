/** A list route's settings derived from its read model's list shapes (listOf), and what refuses a sort no shape serves. */
import { z } from 'zod';
import { inMemoryList, listOf, listResponse, parseListQuery, unservedSorts, type ListSpec } from '../src/list-query';
import { ApiRoute } from '../src/route';
import type { ListShape } from '../../readstore/src/list-shapes';

const widgets: ListShape = { query: 'GET /v1/widgets', equal: ['projectId'], sortable: ['createdAt', 'name'] };
const byColor: ListShape = { query: 'GET /v1/widgets?color=', equal: ['projectId', 'color'], sortable: ['createdAt', 'name'] };

describe('listOf', () => {
  it('takes the sort fields and the default sort from the shape', () => {
    expect(listOf('widgets', widgets)).toEqual({ type: 'widgets', sortFields: ['createdAt', 'name'], defaultSort: '-createdAt', order: { shapes: [widgets] } });
    const versions: ListShape = { query: 'GET /v1/files/{id}/versions', equal: ['fileId'], sortable: ['version', 'createdAt'], defaultSort: [{ field: 'version', direction: 1 }] };
    expect(listOf('file-versions', versions)).toMatchObject({ sortFields: ['version', 'createdAt'], defaultSort: 'version' });
  });

  it('accepts the public names of renamed fields and hands the stored ones to the query', () => {
    const events: ListShape = { query: 'GET /v1/instances/{id}/events', equal: ['instanceId'], sortable: ['revision'], defaultSort: [{ field: 'revision', direction: -1 }] };
    const spec = listOf('instance-events', events, { rename: { createdAt: 'revision' } });
    expect(spec).toMatchObject({ sortFields: ['createdAt'], defaultSort: '-createdAt' });
    expect(parseListQuery({ sort: 'createdAt' }, spec).sort).toEqual([{ field: 'revision', direction: 1 }]);
    expect(parseListQuery({}, spec).sort).toEqual([{ field: 'revision', direction: -1 }]);
    expect(() => parseListQuery({ sort: 'revision' }, spec)).toThrow();
  });

  it('serves a route that runs as several shapes only when they all sort alike', () => {
    expect(listOf('widgets', [widgets, byColor]).sortFields).toEqual(['createdAt', 'name']);
    expect(() => listOf('widgets', [widgets, { ...byColor, sortable: ['createdAt'] }])).toThrow(/sorts by \[createdAt\], GET \/v1\/widgets by \[createdAt,name\]/);
    expect(() => listOf('widgets', [widgets, { ...byColor, defaultSort: [{ field: 'name', direction: 1 }] }])).toThrow(/default sort/);
    expect(() => listOf('widgets', { query: 'poll', equal: ['due'], sorts: [[{ field: 'dueAt', direction: 1 }]] })).toThrow(/no sortable field/);
  });
});

describe('unservedSorts', () => {
  const handMade: ListSpec = { type: 'widgets', sortFields: ['createdAt', 'name', 'size'], defaultSort: 'name', order: { shapes: [widgets, byColor] } };

  it('names each accepted sort and default a shape does not declare', () => {
    expect(unservedSorts(handMade)).toEqual([
      'widgets: sort size is not sortable in GET /v1/widgets',
      'widgets: default sort name is not GET /v1/widgets\'s -createdAt',
      'widgets: sort size is not sortable in GET /v1/widgets?color=',
      'widgets: default sort name is not GET /v1/widgets?color=\'s -createdAt',
    ]);
    expect(unservedSorts(listOf('widgets', [widgets, byColor]))).toEqual([]);
    expect(unservedSorts(inMemoryList('usage', ['costCents'], 'computed from the meters', '-costCents'))).toEqual([]);
  });

  it('makes ApiRoute refuse the route', () => {
    const declare = (list: ListSpec) => ApiRoute({ method: 'GET', path: '/v1/test-unserved', summary: 's', tag: 't', auth: 'project', permission: 'widgets:read', list, responses: { 200: null } });
    expect(() => declare(handMade)).toThrow(/GET \/v1\/test-unserved: widgets: sort size is not sortable in GET \/v1\/widgets/);
    expect(() => declare(listOf('widgets', widgets))).not.toThrow();
  });

  it('an in-memory list says why', () => {
    expect(() => inMemoryList('x', ['name'], ' ')).toThrow(/say why/);
  });
});

describe('cursor', () => {
  const spec = listOf('widgets', [widgets, byColor]);
  const filters = z.object({ color: z.string().optional() });
  const req = { protocol: 'http', host: 'api.test', url: '/v1/widgets?color=red&limit=2' };
  const items = [{ id: 'w1', type: 'widgets', attributes: {} }, { id: 'w2', type: 'widgets', attributes: {} }];
  /** The cursor of page 1's `next` link for `query`, and that link's own query. */
  const nextOf = (query: Record<string, string>) => {
    const list = parseListQuery(query, spec, filters);
    const next = new URL(listResponse(req, list, items, 10).links.next!);
    return Object.fromEntries(next.searchParams);
  };
  const problem = (query: Record<string, unknown>) => {
    try {
      parseListQuery(query, spec, filters);
    } catch (e) {
      const err = e as { status?: number; body?: unknown; errors?: unknown };
      return JSON.stringify(err);
    }
    return 'no error';
  };

  it('rides on the next link beside its page number and turns into the id the store seeks past', () => {
    const next = nextOf({ color: 'red', limit: '2' });
    expect(next).toMatchObject({ color: 'red', page: '2', limit: '2', cursor: expect.any(String) });
    const list = parseListQuery(next, spec, filters);
    expect(list).toMatchObject({ page: 2, limit: 2, skip: 2, afterId: 'w2' });
    // the page's first and last links page by number only
    const doc = listResponse(req, list, items, 10);
    expect(doc.links.first).not.toContain('cursor=');
    expect(doc.links.last).not.toContain('cursor=');
    expect(doc.links.next).toContain('cursor=');
  });

  it('rides on the prev link of a non-empty page past the first and turns into the id the store takes the page before', () => {
    const page3 = parseListQuery({ color: 'red', limit: '2', page: '3' }, spec, filters);
    const prev = Object.fromEntries(new URL(listResponse(req, page3, items, 10).links.prev!).searchParams);
    expect(prev).toMatchObject({ color: 'red', page: '2', limit: '2', cursor: expect.any(String) });
    const list = parseListQuery(prev, spec, filters);
    expect(list).toMatchObject({ page: 2, limit: 2, skip: 2, beforeId: 'w1' });
    expect(list.afterId).toBeUndefined();
    // its own prev leads to page 1 by the same cursor kind
    const back = Object.fromEntries(new URL(listResponse(req, list, items, 10).links.prev!).searchParams);
    expect(parseListQuery(back, spec, filters)).toMatchObject({ page: 1, beforeId: 'w1' });
    // page 1 has no prev; an empty page beyond the last has no first item to carry
    expect(listResponse(req, parseListQuery({ limit: '2' }, spec, filters), items, 10).links.prev).toBeUndefined();
    const beyond = listResponse(req, parseListQuery({ limit: '2', page: '9' }, spec, filters), [], 10);
    expect(beyond.links.prev).toBeDefined();
    expect(beyond.links.prev).not.toContain('cursor=');
    // a prev cursor is refused for another page, size, sort or filter too
    for (const query of [{ ...prev, page: '3' }, { ...prev, limit: '3' }, { ...prev, sort: 'name' }, { ...prev, color: 'blue' }])
      expect(problem(query)).toEqual(expect.stringContaining('cursor'));
    expect(problem(prev)).toBe('no error');
  });

  it('is 400 INVALID_QUERY naming cursor when it does not parse, or belongs to another sort, filter, page or size', () => {
    const next = nextOf({ color: 'red', limit: '2' });
    const cases: Record<string, string>[] = [
      { ...next, cursor: 'not a cursor' },
      { ...next, cursor: 'eyJ4IjoxfQ' }, // {"x":1}
      { ...next, cursor: Buffer.from('{"p":2').toString('base64url') },
      { ...next, sort: 'name' },
      { ...next, color: 'blue' },
      { ...next, page: '3' },
      { ...next, limit: '3' },
    ];
    for (const query of cases) {
      const p = problem(query);
      expect({ query, p }).toEqual({ query, p: expect.stringContaining('cursor') });
      expect(() => parseListQuery(query, spec, filters)).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(problem(next)).toBe('no error');
  });

  it('is neither issued nor read on a list sorted in memory', () => {
    const mem = inMemoryList('widgets', ['name'], 'a small derived view');
    const list = parseListQuery({ limit: '2' }, mem);
    expect(listResponse(req, list, items, 10).links.next).not.toContain('cursor=');
    expect(parseListQuery({ limit: '2', page: '2', cursor: 'whatever' }, mem).afterId).toBeUndefined();
  });
});
