/** List query parsing (page, limit, sort, fields[type], filters) and the collection envelope. */
import { z } from 'zod';
import { ApiErrorItem, invalidQuery } from './errors';
import { CollectionDocument, Resource, SparseFields, sparse } from './envelope';
import { parameterErrors, QUERY_PARSE } from './validation';

export interface ListSpec {
  /** JSON:API resource type of the items. */
  type: string;
  /** Fields accepted by `sort` (e.g. ['createdAt', 'name', 'status']). */
  sortFields: string[];
  /** Default `sort` value; default '-createdAt' (newest first). */
  defaultSort?: string;
  /** Default page size, 20. */
  defaultLimit?: number;
}

export interface SortKey { field: string; direction: 1 | -1 }

export interface ListQuery<F = Record<string, unknown>> {
  page: number;
  limit: number;
  skip: number;
  sort: SortKey[];
  fields?: SparseFields;
  filters: F;
}

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

/** Query without the list parameters (what a route's filter schema validates). */
export function stripListParams(query: RawQuery): RawQuery {
  const out: RawQuery = {};
  for (const [k, v] of Object.entries(query)) if (!['page', 'limit', 'sort'].includes(k) && !FIELDS_PARAM.test(k)) out[k] = v;
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
    if (!keys.some((k) => k.field === field)) keys.push({ field, direction: desc ? -1 : 1 });
  }
  return keys;
}

function parseInt1(name: 'page' | 'limit', raw: unknown, dflt: number, max: number, errors: ApiErrorItem[]): number {
  const v = first(raw);
  if (v === undefined) return dflt;
  const n = typeof v === 'string' && INT.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= max)) {
    errors.push({ detail: name === 'limit' ? 'limit must be an integer between 1 and 100' : 'page must be an integer of at least 1', source: { parameter: name } });
  }
  return n;
}

/** Throws 400 INVALID_QUERY (one error per offending parameter) on bad input. */
export function parseListQuery<F = Record<string, unknown>>(query: RawQuery, spec: ListSpec, filterSchema?: z.ZodType<F>): ListQuery<F> {
  const errors: ApiErrorItem[] = [];
  const page = parseInt1('page', query.page, 1, Number.MAX_SAFE_INTEGER, errors);
  const limit = parseInt1('limit', query.limit, spec.defaultLimit ?? 20, 100, errors);
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
  if (errors.length) throw invalidQuery(errors);
  return { page, limit, skip: (page - 1) * limit, sort, fields, filters };
}

// ---------------------------------------------------------------- response
/** The bits of a request needed for absolute links (Fastify's request satisfies it). */
export interface LinkRequest { protocol: string; host: string; url: string }

export function pageLink(req: LinkRequest, page: number, limit: number): string {
  const u = new URL(req.url, `${req.protocol}://${req.host}`);
  u.searchParams.set('page', String(page));
  u.searchParams.set('limit', String(limit));
  return u.toString();
}

/** Builds `{ data, meta: {page, limit, total, totalPages}, links }` for a list route. */
export function listResponse<A extends object>(req: LinkRequest, list: Pick<ListQuery, 'page' | 'limit' | 'fields'>, items: Resource<A>[], total: number): CollectionDocument<Partial<A>> {
  const totalPages = Math.ceil(total / list.limit);
  const last = Math.max(1, totalPages);
  const links: CollectionDocument['links'] = { first: pageLink(req, 1, list.limit), last: pageLink(req, last, list.limit) };
  if (list.page > 1) links.prev = pageLink(req, Math.min(list.page - 1, last), list.limit);
  if (list.page < last) links.next = pageLink(req, list.page + 1, list.limit);
  return {
    data: items.map((i) => sparse(i, list.fields)),
    meta: { page: list.page, limit: list.limit, total, totalPages },
    links,
  };
}
