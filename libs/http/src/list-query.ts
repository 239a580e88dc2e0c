/** List query parsing (page, limit, sort, cursor, fields[type], filters) and the collection envelope. */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ApiErrorItem, invalidQuery } from './errors';
import { CollectionDocument, Resource, SparseFields, sparse } from './envelope';
import { parameterErrors, QUERY_PARSE } from './validation';
import type { ListQuery, SortKey } from '../../application/src/views';
import { DEFAULT_LIST_SORT, type ListShape } from '../../readstore/src/list-shapes';

/**
 * What orders a list route's pages: the read-model list shapes (`DocumentProjection.lists`) the
 * route's query runs as, whose declared indexes serve each sort field (projections/list-indexes.spec.ts),
 * or, for a list built and sorted in memory on purpose (a small derived view), the reason.
 */
export type ListOrder =
  | {
      /** Every shape the route's query may run as (e.g. with and without `?status=`): each serves every sort field. */
      shapes: readonly ListShape[];
      /** Public sort field → stored field, where they differ (`createdAt` → `revision`); the parsed `sort` holds stored fields. */
      rename?: Readonly<Record<string, string>>;
    }
  | { inMemory: string };

export interface ListSpec {
  /** JSON:API resource type of the items. */
  type: string;
  /** Fields accepted by `sort` (e.g. ['createdAt', 'name', 'status']): from `order`'s shapes, see `listOf`. */
  sortFields: string[];
  /** Default `sort` value; default '-createdAt' (newest first). */
  defaultSort?: string;
  /** Default page size, 20. */
  defaultLimit?: number;
  /** Where the order comes from; `listOf` and `inMemoryList` build specs that say it. */
  order: ListOrder;
}

const showSort = (sort: readonly SortKey[], name: (field: string) => string = (f) => f) => sort.map((k) => `${k.direction === -1 ? '-' : ''}${name(k.field)}`).join(',');

/**
 * The list settings of a route whose query runs as `shapes` (declared next to the model's indexes):
 * the sort fields are the shapes' `sortable` (all must declare the same), the default sort is
 * their `defaultSort` (or `-createdAt`). `rename` maps a public sort field to the stored one.
 * Throws when the shapes disagree: a route may not offer a sort one of its queries cannot serve.
 */
export function listOf(type: string, shapes: ListShape | readonly ListShape[], options: { rename?: Record<string, string>; defaultLimit?: number } = {}): ListSpec {
  const all: readonly ListShape[] = Array.isArray(shapes) ? shapes : [shapes as ListShape];
  const [first] = all;
  if (!first) throw new Error(`listOf(${type}): no list shape`);
  const rename = options.rename ?? {};
  const publicName = (stored: string) => Object.keys(rename).find((k) => rename[k] === stored) ?? stored;
  const sortable = first.sortable ?? [];
  if (!sortable.length) throw new Error(`listOf(${type}): ${first.query} declares no sortable field`);
  const defaultSort = showSort(first.defaultSort ?? DEFAULT_LIST_SORT);
  for (const shape of all.slice(1)) {
    const same = (shape.sortable ?? []).length === sortable.length && sortable.every((f) => shape.sortable!.includes(f));
    if (!same) throw new Error(`listOf(${type}): ${shape.query} sorts by [${shape.sortable ?? []}], ${first.query} by [${sortable}]`);
    if (showSort(shape.defaultSort ?? DEFAULT_LIST_SORT) !== defaultSort) throw new Error(`listOf(${type}): ${shape.query} and ${first.query} differ in their default sort`);
  }
  const spec: ListSpec = {
    type,
    sortFields: sortable.map(publicName),
    defaultSort: showSort(first.defaultSort ?? DEFAULT_LIST_SORT, publicName),
    order: { shapes: all, ...(options.rename ? { rename: options.rename } : {}) },
  };
  if (options.defaultLimit !== undefined) spec.defaultLimit = options.defaultLimit;
  return spec;
}

/** The list settings of a list built and sorted in memory on purpose; `reason` says why no index serves it. */
export function inMemoryList(type: string, sortFields: string[], reason: string, defaultSort = '-createdAt'): ListSpec {
  if (!reason.trim()) throw new Error(`inMemoryList(${type}): say why no index serves it`);
  return { type, sortFields, defaultSort, order: { inMemory: reason } };
}

/**
 * The accepted sorts (`field` and `-field`, and the default) that `spec`'s shapes do not serve,
 * described; empty for an in-memory list. ApiRoute refuses a route for which it is not empty.
 */
export function unservedSorts(spec: ListSpec): string[] {
  if ('inMemory' in spec.order) return [];
  const { shapes, rename = {} } = spec.order;
  const stored = (f: string) => rename[f] ?? f;
  const out: string[] = [];
  for (const shape of shapes) {
    for (const field of spec.sortFields) if (!(shape.sortable ?? []).includes(stored(field))) out.push(`${spec.type}: sort ${field} is not sortable in ${shape.query}`);
    const def = showSort(shape.defaultSort ?? DEFAULT_LIST_SORT);
    const asked = (spec.defaultSort ?? '-createdAt').split(',').map((p) => (p.startsWith('-') ? `-${stored(p.slice(1))}` : stored(p))).join(',');
    if (asked !== def) out.push(`${spec.type}: default sort ${spec.defaultSort ?? '-createdAt'} is not ${shape.query}'s ${def}`);
  }
  return out;
}

export type { ListQuery, SortKey } from '../../application/src/views';
export { pageOf } from '../../application/src/views';

const FIELDS_PARAM = /^fields\[([^\]]+)\]$/;
const INT = /^\d{1,9}$/;

type RawQuery = Record<string, unknown>;
const first = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);

/** Parses `fields[<type>]` params; returns errors for empty or malformed ones. */
export function parseFields(query: RawQuery, errors: ApiErrorItem[]): SparseFields | undefined {
  let fields: SparseFields | undefined;
  for (const [key, raw] of Object.entries(query)) {
    const m = FIELDS_PARAM.exec(key);
    if (!m) continue;
    const v = first(raw);
    const names = typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : [];
    if (typeof v !== 'string') {
      errors.push({ detail: `${key} must be a comma-separated list of attribute names`, source: { parameter: key } });
      continue;
    }
    (fields ??= {})[m[1]] = names;
  }
  return fields;
}

/**
 * JSON:API pagination aliases (what clients such as kitsu send): `page[number]`/`page[size]` are
 * `page`/`limit`; `page[limit]`/`page[offset]` are `limit` and a zero-based offset, which must be a
 * multiple of the page size (the API pages, it does not slice).
 */
export const PAGE_ALIASES = ['page[number]', 'page[size]', 'page[limit]', 'page[offset]'] as const;
/** Every list parameter but the filters and `fields[<type>]` (query-params.ts accepts them on a list route). */
export const LIST_PARAMS: readonly string[] = ['page', 'limit', 'sort', 'cursor', ...PAGE_ALIASES];

/** Query without the list parameters (what a route's filter schema validates). */
export function stripListParams(query: RawQuery): RawQuery {
  const out: RawQuery = {};
  for (const [k, v] of Object.entries(query)) if (!LIST_PARAMS.includes(k) && !FIELDS_PARAM.test(k)) out[k] = v;
  return out;
}

function parseSort(raw: string, spec: ListSpec, errors: ApiErrorItem[]): SortKey[] {
  const keys: SortKey[] = [];
  for (const part of raw.split(',').map((s) => s.trim())) {
    const desc = part.startsWith('-');
    const field = desc ? part.slice(1) : part;
    if (!field || !spec.sortFields.includes(field)) {
      errors.push({ detail: `Unknown sort field '${field}'; allowed: ${spec.sortFields.join(', ')}`, source: { parameter: 'sort' } });
      return [];
    }
    const stored = 'shapes' in spec.order ? spec.order.rename?.[field] ?? field : field;
    if (!keys.some((k) => k.field === stored)) keys.push({ field: stored, direction: desc ? -1 : 1 });
  }
  return keys;
}

function parseIntParam(name: string, raw: unknown, min: number, max: number, errors: ApiErrorItem[]): number | undefined {
  const v = first(raw);
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && INT.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `between ${min} and ${max}`;
    errors.push({ detail: `${name} must be an integer ${range}`, source: { parameter: name } });
    return undefined;
  }
  return n;
}

/** Which of a setting's spellings (`limit`, `page[size]`, …) the client used; two of them → 400. */
function spelling(query: RawQuery, names: readonly string[], errors: ApiErrorItem[]): string | null | undefined {
  const given = names.filter((n) => query[n] !== undefined);
  if (given.length > 1) {
    errors.push({ detail: `Give only one of ${given.join(', ')}`, source: { parameter: given[1] } });
    return null;
  }
  return given[0];
}

/** `page`/`limit` from the query or their JSON:API aliases (same bounds, 400 INVALID_QUERY naming the parameter sent). */
function parsePaging(query: RawQuery, spec: ListSpec, errors: ApiErrorItem[]): { page: number; limit: number } {
  const limitName = spelling(query, ['limit', 'page[size]', 'page[limit]'], errors);
  const pageName = spelling(query, ['page', 'page[number]', 'page[offset]'], errors);
  const limit = limitName === undefined ? spec.defaultLimit ?? 20 : limitName === null ? NaN : parseIntParam(limitName, query[limitName], 1, 100, errors) ?? NaN;
  if (pageName === undefined) return { page: 1, limit };
  if (pageName === null) return { page: NaN, limit };
  if (pageName !== 'page[offset]') return { page: parseIntParam(pageName, query[pageName], 1, Number.MAX_SAFE_INTEGER, errors) ?? NaN, limit };
  const offset = parseIntParam(pageName, query[pageName], 0, Number.MAX_SAFE_INTEGER, errors);
  if (offset === undefined || Number.isNaN(limit)) return { page: NaN, limit };
  if (offset % limit !== 0) {
    errors.push({ detail: `page[offset] must be a multiple of the page size (${limit})`, source: { parameter: pageName } });
    return { page: NaN, limit };
  }
  return { page: offset / limit + 1, limit };
}

// ---------------------------------------------------------------- cursor
/**
 * The `cursor` a `next` or `prev` link carries beside its page number: the id of the page's last
 * item (`d: 'next'`, the store seeks past it, FindQuery.afterId) or first item (`d: 'prev'`, the
 * store takes the items just before it, FindQuery.beforeId) instead of skipping, and what it
 * belongs to: the page it leads to, the page size, the sort and the filters (a digest). base64url
 * JSON, opaque to clients.
 */
interface Cursor { p: number; l: number; s: string; f: string; id: string; d: 'next' | 'prev' }

/** What a list request's cursor must match, and what its `next` link's cursor says; set on lists an index orders (see `ListOrder`). */
export interface CursorScope { sort: string; filters: string }

/** A digest of the parsed filters (keys in order): a cursor answers only the filters it came from. */
function filterDigest(filters: unknown): string {
  const canon = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(canon(filters ?? {})) ?? '').digest('base64url').slice(0, 16);
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

// `d` absent: a cursor issued before `prev` links carried one (they were all `next`).
const CURSOR = z
  .strictObject({ p: z.number().int().min(1), l: z.number().int().min(1), s: z.string(), f: z.string(), id: z.string().min(1), d: z.enum(['next', 'prev']).default('next') })
  .refine((c) => c.d === 'prev' || c.p >= 2);

/** The seek a request's `cursor` names (`afterId` or `beforeId`), or an error: unreadable, or from another page, size, sort or filter. */
function parseCursor(raw: unknown, at: { page: number; limit: number; scope: CursorScope }, errors: ApiErrorItem[]): { afterId: string } | { beforeId: string } | undefined {
  const v = first(raw);
  if (v === undefined) return undefined;
  const fail = (detail: string) => void errors.push({ detail, source: { parameter: 'cursor' } });
  let decoded: unknown;
  try {
    decoded = typeof v === 'string' && /^[A-Za-z0-9_-]{1,2048}$/.test(v) ? JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) : undefined;
  } catch {
    decoded = undefined;
  }
  const c = CURSOR.safeParse(decoded);
  if (!c.success) return fail('cursor is not one this API issued: follow the links.next or links.prev of the page beside, or drop cursor to page by number');
  if (c.data.s !== at.scope.sort) return fail('cursor belongs to another sort than this request\'s');
  if (c.data.f !== at.scope.filters) return fail('cursor belongs to other filters than this request\'s');
  if (c.data.p !== at.page || c.data.l !== at.limit) return fail(`cursor leads to page ${c.data.p} of ${c.data.l} items; this request asks for page ${at.page} of ${at.limit}`);
  return c.data.d === 'prev' ? { beforeId: c.data.id } : { afterId: c.data.id };
}

/** A list query as the HTTP edge parsed it: `scope` (on lists an index orders) lets the `next` link carry a cursor. */
export type HttpListQuery<F = Record<string, unknown>> = ListQuery<F> & { scope?: CursorScope };

/** Throws 400 INVALID_QUERY (one error per offending parameter) on bad input. */
export function parseListQuery<F = Record<string, unknown>>(query: RawQuery, spec: ListSpec, filterSchema?: z.ZodType<F>): HttpListQuery<F> {
  const errors: ApiErrorItem[] = [];
  const { page, limit } = parsePaging(query, spec, errors);
  const sortRaw = first(query.sort);
  let sort: SortKey[] = [];
  if (sortRaw !== undefined && typeof sortRaw !== 'string') errors.push({ detail: 'sort must be a string', source: { parameter: 'sort' } });
  else sort = parseSort(sortRaw ?? spec.defaultSort ?? '-createdAt', { ...spec, sortFields: sortRaw === undefined ? [...spec.sortFields, 'createdAt'] : spec.sortFields }, errors);
  const fields = parseFields(query, errors);
  let filters = {} as F;
  if (filterSchema) {
    const r = filterSchema.safeParse(stripListParams(query), QUERY_PARSE);
    if (r.success) filters = r.data;
    else errors.push(...parameterErrors(r.error));
  }
  // Only lists an index orders take a cursor (an in-memory list slices its whole match anyway).
  const scope = 'shapes' in spec.order && !errors.length ? { sort: showSort(sort), filters: filterDigest(filters) } : undefined;
  const seek = scope ? parseCursor(query.cursor, { page, limit, scope }, errors) : undefined;
  if (errors.length) throw invalidQuery(errors);
  return { page, limit, skip: (page - 1) * limit, sort, fields, filters, ...seek, ...(scope ? { scope } : {}) };
}

// ---------------------------------------------------------------- response
/** The bits of a request needed for absolute links (Fastify's request satisfies it). */
export interface LinkRequest { protocol: string; host: string; url: string }

export function pageLink(req: LinkRequest, page: number, limit: number, cursor?: string): string {
  const u = new URL(req.url, `${req.protocol}://${req.host}`);
  // links always carry page and limit: an alias the client sent would contradict them
  for (const alias of PAGE_ALIASES) u.searchParams.delete(alias);
  u.searchParams.delete('cursor');
  u.searchParams.set('page', String(page));
  u.searchParams.set('limit', String(limit));
  if (cursor) u.searchParams.set('cursor', cursor);
  return u.toString();
}

/**
 * Builds `{ data, meta: {page, limit, total, totalPages}, links }` for a list route. On a list an
 * index orders (`scope`), `next` also carries a cursor: the page's last id, which the store seeks
 * past instead of skipping the pages before (the page number stays, and answers the same page);
 * `prev` one with the page's first id, before which the store takes the page.
 */
export function listResponse<A extends object>(req: LinkRequest, list: Pick<HttpListQuery, 'page' | 'limit' | 'fields' | 'scope'>, items: Resource<A>[], total: number): CollectionDocument<Partial<A>> {
  const totalPages = Math.ceil(total / list.limit);
  const last = Math.max(1, totalPages);
  const links: CollectionDocument['links'] = { first: pageLink(req, 1, list.limit), last: pageLink(req, last, list.limit) };
  const cursor = (p: number, id: string | undefined, d: Cursor['d']) => (list.scope && id ? encodeCursor({ p, l: list.limit, s: list.scope.sort, f: list.scope.filters, id, d }) : undefined);
  // A non-empty page's first item is where the page before ends (one beyond the last has none).
  if (list.page > 1) links.prev = pageLink(req, Math.min(list.page - 1, last), list.limit, cursor(list.page - 1, items[0]?.id, 'prev'));
  if (list.page < last) {
    // Only a full page's last item is where the next page starts.
    links.next = pageLink(req, list.page + 1, list.limit, cursor(list.page + 1, items.length === list.limit ? items[items.length - 1]?.id : undefined, 'next'));
  }
  return {
    data: items.map((i) => sparse(i, list.fields)),
    meta: { page: list.page, limit: list.limit, total, totalPages },
    links,
  };
}
