/**
 * The query parameters a route takes are the ones its OpenAPI operation documents: its filter
 * schema's properties, `page`/`limit`/`sort` and their aliases on a list, `fields[<type>]`, and
 * `asOf` on a single-resource GET. Anything else is 400 INVALID_QUERY naming the parameter
 * (DECISIONS 1): a client that misspells a filter learns it instead of getting an unfiltered list.
 * `filter[<name>]` (JSON:API) is an alias of each filter, as `page[...]` is of the paging settings.
 */
import { z } from 'zod';
import type { ApiErrorItem } from './errors';
import { invalidQuery } from './errors';
import { LIST_PARAMS as LIST_PARAM_NAMES } from './list-query';
import { takesAsOf, type RegisteredRoute } from './route';

type RawQuery = Record<string, unknown>;

const FILTER_ALIAS = /^filter\[([^\]]+)\]$/;
const FIELDS_PARAM = /^fields\[[^\]]+\]$/;
const LIST_PARAMS: ReadonlySet<string> = new Set(LIST_PARAM_NAMES);

const names = new WeakMap<z.ZodType, readonly string[]>();

/** The properties of a route's filter schema, as its OpenAPI document lists them. */
export function filterNames(schema: z.ZodType | undefined): readonly string[] {
  if (!schema) return [];
  let out = names.get(schema);
  if (!out) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    out = Object.keys(json.properties ?? {});
    names.set(schema, out);
  }
  return out;
}

/**
 * The query with each `filter[name]` alias replaced by `name`; throws 400 INVALID_QUERY naming every
 * parameter the route does not take, and an alias sent beside its plain spelling.
 */
export function strictQuery(query: RawQuery, route: Pick<RegisteredRoute, 'list' | 'query' | 'method' | 'params' | 'produces'>): RawQuery {
  // `asOf` on a single-resource GET (DECISIONS 20), documented beside the route's own parameters.
  const filters = takesAsOf(route) ? [...filterNames(route.query), 'asOf'] : filterNames(route.query);
  const errors: ApiErrorItem[] = [];
  const out: RawQuery = {};
  for (const [key, value] of Object.entries(query)) {
    const alias = FILTER_ALIAS.exec(key)?.[1];
    if (alias !== undefined && route.list && filters.includes(alias)) {
      if (query[alias] !== undefined) errors.push({ detail: `Give only one of ${alias}, ${key}`, source: { parameter: key } });
      else out[alias] = value;
      continue;
    }
    if (filters.includes(key) || FIELDS_PARAM.test(key) || (route.list && LIST_PARAMS.has(key))) {
      out[key] = value;
      continue;
    }
    const takes = [...filters, ...(route.list ? ['page', 'limit', 'sort'] : [])];
    errors.push({ detail: `Unknown query parameter '${key}'${takes.length ? `; this route takes ${takes.join(', ')}` : '; this route takes none'}`, source: { parameter: key } });
  }
  if (errors.length) throw invalidQuery(errors);
  return out;
}
