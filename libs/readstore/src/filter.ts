/**
 * Pure helpers shared by the adapters: validation of the allowed query subset (the part every
 * adapter needs), and for the in-memory adapter the matcher (mingo) and BSON comparator.
 * The semantics, as MongoDB has them for that subset:
 *  - dotted paths traverse nested objects and arrays of objects (`items.sku`), numeric segments
 *    index arrays (`tags.0`);
 *  - scalar equality on an array field matches when any element is equal (`{tags: 'x'}`);
 *  - `{f: null}` / `{f: {$eq: null}}` match null AND missing; `$ne: null` means "present, not null";
 *  - range operators use type bracketing (numbers only compare with numbers, strings with strings,
 *    booleans with booleans); `$gte/$lte: null` behave like `$eq: null`, `$gt/$lt: null` match nothing;
 *  - sort order is BSON order: missing = null < numbers < strings < objects < arrays < booleans,
 *    strings by code point (= UTF-8 byte order), arrays sort by their min (asc) / max (desc) element.
 * Matching is mingo's, except range operators (mingo compares strings by UTF-16 unit). Sorting and
 * index keys keep their own comparator: mingo's sort orders strings by UTF-16 unit and sorts arrays
 * descending by their smallest element, both unlike MongoDB (the contract suite checks both), and
 * the in-memory indexes must order exactly as a sorted scan does.
 */
import { Context, Query } from 'mingo';
import { InvalidDocumentError, InvalidQueryError } from './errors';
import type { Filter, FindQuery, IndexSpec, ReadDoc, Scalar, SortKey } from './read-store.port';

export const CONDITION_OPERATORS = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
const OPERATOR_SET: ReadonlySet<string> = new Set(CONDITION_OPERATORS);

/** Physical collection holding getMeta/setMeta values (reserved: collection() rejects it). */
export const META_COLLECTION = '_meta';

// ------------------------------------------------------------------ validation

function describe(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A field path: non-empty dot-separated segments, no `$` prefix, `_id` reserved (use `id`). */
export function validatePath(path: unknown, what = 'field'): string {
  if (typeof path !== 'string' || path.length === 0) throw new InvalidQueryError(`${what} path must be a non-empty string`);
  const segments = path.split('.');
  for (const s of segments) {
    if (s.length === 0) throw new InvalidQueryError(`${what} path "${path}" has an empty segment`);
    if (s.startsWith('$')) throw new InvalidQueryError(`${what} path "${path}": operators/$-prefixed names are not allowed here`);
  }
  if (segments[0] === '_id') throw new InvalidQueryError(`${what} path "${path}": "_id" is reserved, use "id"`);
  if (segments[0] === 'id' && segments.length > 1) throw new InvalidQueryError(`${what} path "${path}": "id" is a string, it has no sub-fields`);
  return path;
}

function validateScalar(v: unknown, where: string): void {
  if (!isScalar(v)) throw new InvalidQueryError(`${where}: expected a string, finite number, boolean or null, got ${describe(v)}`);
}

/** Throws InvalidQueryError unless `cond` is in the allowed Condition subset. */
export function validateCondition(path: string, cond: unknown): void {
  if (isScalar(cond)) return;
  if (!isPlainObject(cond)) throw new InvalidQueryError(`condition on "${path}": expected a scalar or an operator object, got ${describe(cond)}`);
  const keys = Object.keys(cond);
  if (keys.length === 0) throw new InvalidQueryError(`condition on "${path}": empty operator object`);
  for (const op of keys) {
    if (!OPERATOR_SET.has(op)) throw new InvalidQueryError(`condition on "${path}": unsupported operator ${describe(op)} (allowed: ${CONDITION_OPERATORS.join(', ')})`);
    const arg = cond[op];
    const where = `condition on "${path}" ${op}`;
    switch (op as ConditionOperator) {
      case '$in':
      case '$nin':
        if (!Array.isArray(arg)) throw new InvalidQueryError(`${where}: expected an array`);
        arg.forEach((v, i) => validateScalar(v, `${where}[${i}]`));
        break;
      case '$exists':
        if (typeof arg !== 'boolean') throw new InvalidQueryError(`${where}: expected a boolean`);
        break;
      default:
        validateScalar(arg, where);
    }
  }
}

/** Throws InvalidQueryError unless `filter` is in the allowed subset. Returns it for chaining. */
export function validateFilter(filter: unknown): Filter {
  if (filter === undefined) return {};
  if (!isPlainObject(filter)) throw new InvalidQueryError(`filter must be a plain object, got ${describe(filter)}`);
  for (const [path, cond] of Object.entries(filter)) {
    validatePath(path, 'filter');
    validateCondition(path, cond);
  }
  return filter as Filter;
}

export function validateSort(sort: unknown): SortKey[] {
  if (sort === undefined) return [];
  if (!Array.isArray(sort)) throw new InvalidQueryError('sort must be an array of {field, direction}');
  const seen = new Set<string>();
  for (const k of sort) {
    if (!isPlainObject(k)) throw new InvalidQueryError(`sort key must be {field, direction}, got ${describe(k)}`);
    const field = validatePath(k.field, 'sort');
    if (k.direction !== 1 && k.direction !== -1) throw new InvalidQueryError(`sort on "${field}": direction must be 1 or -1`);
    if (seen.has(field)) throw new InvalidQueryError(`sort on "${field}" given twice`);
    seen.add(field);
  }
  return sort as SortKey[];
}

/** Sort keys with the final `id` ascending tie-breaker appended (unless `id` is already a key). */
export function withIdTieBreaker(sort: SortKey[]): SortKey[] {
  return sort.some((k) => k.field === 'id') ? sort : [...sort, { field: 'id', direction: 1 }];
}

function validateCount(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new InvalidQueryError(`${what} must be a non-negative integer, got ${describe(v)}`);
  return v;
}

export interface NormalizedQuery {
  filter: Filter;
  /** Including the final id tie-breaker. */
  sort: SortKey[];
  skip: number;
  /** undefined = no limit; 0 = return no items (total only). */
  limit: number | undefined;
  /** FindQuery.after's value under each key of `sort`: only documents after them (withTotal false, skip 0). */
  after?: Array<string | number | boolean>;
  /** Set by a `beforeId` seek: `sort` is the query's reversed, and the page is answered reversed back. */
  reversed?: boolean;
}

export function normalizeQuery(query: FindQuery | undefined): NormalizedQuery {
  const q = query ?? {};
  const sort = withIdTieBreaker(validateSort(q.sort));
  const skip = validateCount(q.skip, 'skip') ?? 0;
  const out: NormalizedQuery = { filter: validateFilter(q.filter), sort, skip, limit: validateCount(q.limit, 'limit') };
  if (q.after !== undefined) out.after = validateAfter(q, sort, skip);
  if (q.afterId !== undefined && (typeof q.afterId !== 'string' || q.after !== undefined)) throw new InvalidQueryError('afterId must be a string id, without after');
  if (q.beforeId !== undefined && (typeof q.beforeId !== 'string' || q.after !== undefined || q.afterId !== undefined)) throw new InvalidQueryError('beforeId must be a string id, without after or afterId');
  return out;
}

/** The id a public page seeks from (FindQuery.afterId or beforeId), and which way. */
export function seekId(query: FindQuery): { id: string; direction: 'after' | 'before' } | undefined {
  if (query.afterId !== undefined) return { id: query.afterId, direction: 'after' };
  if (query.beforeId !== undefined) return { id: query.beforeId, direction: 'before' };
  return undefined;
}

/**
 * `q` seeking past `doc` (FindQuery.afterId's or beforeId's document, read by the adapter) instead
 * of skipping: when the document exists, matches the filter and holds a string, number or boolean
 * under each sort key. `before` seeks past it in the reversed sort (`reversed`: the adapter answers
 * the page reversed back). Otherwise `q` unchanged (its `skip` applies, in the query's order).
 */
export function seekPast(q: NormalizedQuery, doc: ReadDoc | null, direction: 'after' | 'before' = 'after'): NormalizedQuery {
  if (!doc || q.after || !compileFilter(q.filter)(doc)) return q;
  const values: Array<string | number | boolean> = [];
  for (const k of q.sort) {
    const found = resolvePath(doc, k.field);
    const v = found.length === 1 ? found[0] : undefined;
    if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v))) return q;
    values.push(v);
  }
  if (direction === 'before') return { ...q, skip: 0, after: values, sort: q.sort.map((k) => ({ field: k.field, direction: k.direction === 1 ? -1 : 1 })), reversed: true };
  return { ...q, skip: 0, after: values };
}

/** The values of `query.after` under each sort key (id included), checked (see FindQuery.after). */
function validateAfter(query: FindQuery, sort: SortKey[], skip: number): Array<string | number | boolean> {
  const after = query.after;
  if (after === null || typeof after !== 'object' || Array.isArray(after)) throw new InvalidQueryError('after must be a document (the previous page\'s last item)');
  if (query.withTotal !== false) throw new InvalidQueryError('after needs withTotal: false (a keyset seek counts nothing)');
  if (skip !== 0) throw new InvalidQueryError('after and skip exclude each other');
  return sort.map((k) => {
    const found = resolvePath(after, k.field);
    const v = found.length === 1 ? found[0] : undefined;
    if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v))) throw new InvalidQueryError(`after.${k.field} must be a string, number or boolean`);
    return v;
  });
}

// ------------------------------------------------------------------ documents and indexes

export function indexName(fields: SortKey[]): string {
  return fields.map((f) => `${f.field === 'id' ? '_id' : f.field}_${f.direction}`).join('_');
}

export function validateDoc(doc: unknown): asserts doc is ReadDoc {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new InvalidDocumentError('document must be an object');
  const d = doc as Record<string, unknown>;
  if (typeof d.id !== 'string' || d.id.length === 0) throw new InvalidDocumentError('document needs a non-empty string id');
  if (Object.prototype.hasOwnProperty.call(d, '_id')) throw new InvalidDocumentError(`document ${d.id}: "_id" is reserved (the adapter derives it from id)`);
}

export function validateIndexSpec(spec: IndexSpec): void {
  if (!spec || !Array.isArray(spec.fields) || spec.fields.length === 0) throw new InvalidQueryError('index needs at least one field');
  const seen = new Set<string>();
  for (const f of spec.fields) {
    validatePath(f?.field, 'index');
    if (f.direction !== 1 && f.direction !== -1) throw new InvalidQueryError(`index on "${f.field}": direction must be 1 or -1`);
    if (seen.has(f.field)) throw new InvalidQueryError(`index field "${f.field}" given twice`);
    seen.add(f.field);
  }
}

// ------------------------------------------------------------------ path resolution

/** Marker for "no value at this path" (undefined values are treated as missing too). */
export const MISSING: unique symbol = Symbol('missing');
export type Resolved = unknown | typeof MISSING;

function isIndexSegment(s: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(s);
}

function resolveInto(value: unknown, segments: string[], i: number, out: Resolved[]): void {
  if (value === undefined) {
    out.push(MISSING);
    return;
  }
  if (i === segments.length) {
    out.push(value);
    return;
  }
  const seg = segments[i]!;
  if (Array.isArray(value)) {
    if (isIndexSegment(seg)) {
      const idx = Number(seg);
      resolveInto(idx < value.length ? value[idx] : undefined, segments, i + 1, out);
      return;
    }
    // implicit traversal of arrays of documents
    const before = out.length;
    for (const el of value) {
      if (el !== null && typeof el === 'object' && !Array.isArray(el)) resolveInto((el as Record<string, unknown>)[seg], segments, i + 1, out);
    }
    if (out.length === before) out.push(MISSING);
    return;
  }
  if (value !== null && typeof value === 'object') {
    resolveInto(Object.prototype.hasOwnProperty.call(value, seg) ? (value as Record<string, unknown>)[seg] : undefined, segments, i + 1, out);
    return;
  }
  out.push(MISSING);
}

/** Every value reachable at `path` (arrays of documents fan out); [MISSING] when there is none. */
export function resolvePath(doc: unknown, path: string | string[]): Resolved[] {
  const segments = typeof path === 'string' ? path.split('.') : path;
  const out: Resolved[] = [];
  resolveInto(doc, segments, 0, out);
  return out;
}

// ------------------------------------------------------------------ comparison (BSON order)

/** Code point order (= UTF-8 byte order, MongoDB's binary string comparison), not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // surrogates (D800-DFFF) encode code points >= 0x10000, above E000-FFFF
      if (x >= 0xd800 || y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x >= 0xd800 ? x + 0x2000 : x;
        y = y >= 0xe000 ? y - 0x800 : y >= 0xd800 ? y + 0x2000 : y;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Canonical type rank in BSON comparison order; missing/undefined rank with null. */
export function typeRank(v: Resolved): number {
  if (v === MISSING || v === null || v === undefined) return 1;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    case 'object':
      if (Array.isArray(v)) return 5;
      if (v instanceof Date) return 9;
      return 4;
    default:
      return 20;
  }
}

/** Total order over JSON-ish values following MongoDB's BSON comparison. */
export function compareValues(a: Resolved, b: Resolved): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 1:
      return 0;
    case 2: {
      const x = a as number;
      const y = b as number;
      if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1; // NaN sorts below every number
      if (Number.isNaN(y)) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3:
      return compareStrings(a as string, b as string);
    case 8:
      return a === b ? 0 : a ? 1 : -1;
    case 9:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return Math.sign(x.length - y.length);
    }
    case 4: {
      const x = Object.entries(a as object).filter(([, v]) => v !== undefined);
      const y = Object.entries(b as object).filter(([, v]) => v !== undefined);
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const [kx, vx] = x[i]!;
        const [ky, vy] = y[i]!;
        const t = typeRank(vx) - typeRank(vy);
        if (t !== 0) return Math.sign(t);
        const k = compareStrings(kx, ky);
        if (k !== 0) return k;
        const c = compareValues(vx, vy);
        if (c !== 0) return c;
      }
      return Math.sign(x.length - y.length);
    }
    default:
      return 0;
  }
}

/** Sort-key marker for an empty array: MongoDB sorts `[]` below null/missing. */
const EMPTY_ARRAY_KEY: unique symbol = Symbol('emptyArray');

function compareSortKeys(a: unknown, b: unknown): number {
  if (a === EMPTY_ARRAY_KEY || b === EMPTY_ARRAY_KEY) return a === b ? 0 : a === EMPTY_ARRAY_KEY ? -1 : 1;
  return compareValues(a, b);
}

/**
 * The value a document sorts by for one key: arrays contribute their elements, and the smallest
 * (ascending) or largest (descending) candidate wins, as in MongoDB.
 */
export function sortKeyOf(doc: unknown, segments: string[], direction: 1 | -1): unknown {
  const resolved = resolvePath(doc, segments);
  let best: unknown = undefined;
  let have = false;
  let sawEmpty = false;
  const consider = (v: unknown) => {
    if (!have) {
      best = v;
      have = true;
      return;
    }
    const c = compareValues(v, best);
    if (direction === 1 ? c < 0 : c > 0) best = v;
  };
  for (const r of resolved) {
    if (Array.isArray(r)) {
      if (r.length === 0) sawEmpty = true;
      for (const el of r) consider(el);
    } else consider(r === MISSING ? null : r);
  }
  if (!have) return sawEmpty ? EMPTY_ARRAY_KEY : null;
  return best;
}

export interface CompiledSort<D> {
  /** Precomputed keys for one document; compare with `compare`. */
  keys(doc: D): unknown[];
  compare(a: unknown[], b: unknown[]): number;
}

/** Compiles sort keys (already including the id tie-breaker) into a key extractor + comparator. */
export function compileSort<D extends { id: string }>(sort: SortKey[]): CompiledSort<D> {
  const parts = sort.map((k) => ({ segments: k.field.split('.'), direction: k.direction, isId: k.field === 'id' }));
  return {
    keys: (doc) => parts.map((p) => (p.isId ? doc.id : sortKeyOf(doc, p.segments, p.direction))),
    compare: (a, b) => {
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        const c = p.isId ? compareStrings(a[i] as string, b[i] as string) : compareSortKeys(a[i], b[i]);
        if (c !== 0) return p.direction === 1 ? c : -c;
      }
      return 0;
    },
  };
}

// ------------------------------------------------------------------ matching

type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';

function rangeHolds(op: RangeOp, v: unknown, target: Exclude<Scalar, null>): boolean {
  if (typeRank(v) !== typeRank(target)) return false; // type bracketing
  const c = compareValues(v, target);
  return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
}

/**
 * A range operator as MongoDB evaluates it: type bracketing, strings by code point (mingo compares
 * them by UTF-16 unit, which differs above U+FFFF), any array element or fanned-out value may hold.
 */
function rangeOperator(op: RangeOp) {
  return (selector: string, target: unknown) => {
    const segments = selector.split('.');
    if (target === null) {
      const eq = op === '$gte' || op === '$lte';
      return (doc: unknown) => eq && resolvePath(doc, segments).some((v) => v === MISSING || v === null || (Array.isArray(v) && v.some((el) => el === null)));
    }
    return (doc: unknown) =>
      resolvePath(doc, segments).some((v) => v !== MISSING && (Array.isArray(v) ? v.some((el) => rangeHolds(op, el, target as Exclude<Scalar, null>)) : rangeHolds(op, v, target as Exclude<Scalar, null>)));
  };
}

const RANGE_OPS: Record<RangeOp, `$${string}`> = { $gt: '$cpGt', $gte: '$cpGte', $lt: '$cpLt', $lte: '$cpLte' };
const MINGO_OPTIONS = {
  context: Context.init({
    query: Object.fromEntries(Object.entries(RANGE_OPS).map(([op, name]) => [name, rangeOperator(op as RangeOp)])) as never,
  }),
};

/**
 * Validates the filter and compiles it into a predicate over stored documents: mingo evaluates it
 * (equality on arrays, null = missing, `$ne`/`$nin`/`$exists`, dotted paths through arrays), with
 * the range operators replaced by code-point-exact ones.
 */
export function compileFilter(filter: Filter | undefined): (doc: unknown) => boolean {
  const f = validateFilter(filter);
  if (Object.keys(f).length === 0) return () => true;
  const criteria: Record<string, unknown> = {};
  for (const [path, cond] of Object.entries(f)) {
    if (isScalar(cond)) criteria[path] = { $eq: cond };
    else criteria[path] = Object.fromEntries(Object.entries(cond).map(([op, arg]) => [RANGE_OPS[op as RangeOp] ?? op, arg]));
  }
  const query = new Query(criteria, MINGO_OPTIONS);
  return (doc) => query.test(doc as Record<string, unknown>);
}
