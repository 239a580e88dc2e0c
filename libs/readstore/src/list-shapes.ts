/**
 * List shapes: what a read model's list routes (and polls) query, declared next to its indexes
 * (`DocumentProjection.lists`), so that a test proves each one is served by an index, and the rule
 * both adapters use to walk an index in a query's order.
 *
 * An index serves a query in order when its key is
 *   the query's equality fields (in any order; `$in` fields too: one range per value, merged)
 *   + the sort's keys, minus those an equality fixes, in the sort's directions (or all reversed)
 *   + `id` ascending (the tie-breaker every find appends; implied at the end of an index without it).
 * MongoDB then needs no in-memory sort (for `$in`, a SORT_MERGE of the ranges), and the in-memory
 * store reads a page from its ordered structure at O(log n + page).
 *
 * Other filters (`$ne`, ranges, optional equalities that no index key leads with) are residual:
 * checked on each entry while the index is walked in order. Declare them in `residual` so the
 * choice is visible; a page then costs the entries walked past, not a sort of the whole match.
 */
import { withIdTieBreaker } from './filter';
import type { IndexSpec, SortKey } from './read-store.port';

export interface ListShape {
  /** The route or poll that runs it, e.g. `GET /v1/instances?status=`; names the shape in failures. */
  query: string;
  /** Fields every such query compares by equality (a value or `$in`): the index prefix. */
  equal: string[];
  /** Filters checked while walking (`$ne`, ranges, optional filters): documentation of the plan. */
  residual?: string[];
  /** Fields a client may sort by: each ascending and descending must be served. */
  sortable?: string[];
  /** Fixed sorts of internal polls (e.g. `[{ field: 'dueAt', direction: 1 }]`). */
  sorts?: SortKey[][];
  /** The sort when none is asked; `-createdAt` (newest first) unless said otherwise. */
  defaultSort?: SortKey[];
}

/** `-createdAt`: newest first (libs/http list-query's default). */
export const DEFAULT_LIST_SORT: SortKey[] = [{ field: 'createdAt', direction: -1 }];

/** Every sort a shape must serve (without the `id` tie-breaker): each sortable field both ways, the fixed sorts, the default. */
export function shapeSorts(shape: ListShape): SortKey[][] {
  const out: SortKey[][] = [];
  for (const field of shape.sortable ?? []) out.push([{ field, direction: 1 }], [{ field, direction: -1 }]);
  out.push(...(shape.sorts ?? []));
  if (shape.sortable) out.push(shape.defaultSort ?? DEFAULT_LIST_SORT);
  return out;
}

/** An index's key with the `id` ascending tie-breaker implied at its end when absent. */
export function keyWithId(fields: SortKey[]): SortKey[] {
  return fields.some((f) => f.field === 'id') ? fields : [...fields, { field: 'id', direction: 1 }];
}

export interface IndexOrder {
  /** Number of leading key fields holding the query's equality (or `$in`) fields. */
  prefix: number;
  /** Walk the index backwards. */
  reverse: boolean;
}

/**
 * Whether an index key serves, in order, a query whose leading `prefix` key fields are compared by
 * equality (`fixed`: the fields whose value is the same in every result: plain equalities, and
 * `$in` fields inside the prefix, constant within each merged range) and whose full sort (with the
 * id tie-breaker) is `sort`.
 */
export function servesOrder(key: SortKey[], prefix: number, fixed: ReadonlySet<string>, sort: SortKey[]): IndexOrder | null {
  const effective = sort.filter((k) => !fixed.has(k.field));
  const rest = key.slice(prefix);
  if (rest.length !== effective.length) return null;
  let same = true;
  let reversed = true;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i]!.field !== effective[i]!.field) return null;
    if (rest[i]!.direction === effective[i]!.direction) reversed = false;
    else same = false;
  }
  if (same) return { prefix, reverse: false };
  if (reversed) return { prefix, reverse: true };
  return null;
}

/**
 * The declared index covering `shape` sorted by `sort`: its key starts with exactly the shape's
 * equality fields (any order) and continues with the sort (minus the fields an equality fixes) and
 * `id`, all in the sort's directions or all reversed. Undefined when none does.
 */
export function coveringIndex(indexes: readonly IndexSpec[], shape: ListShape, sort: SortKey[]): IndexSpec | undefined {
  const equal = new Set(shape.equal);
  const full = withIdTieBreaker(sort);
  return indexes.find((spec) => {
    // MongoDB orders by `_id` within equal keys only when the index says so: no implied tie-breaker here.
    const key = spec.fields;
    const head = key.slice(0, equal.size).map((k) => k.field);
    if (head.length !== equal.size || !head.every((f) => equal.has(f))) return false;
    return servesOrder(key, equal.size, equal, full) !== null;
  });
}

/** Every (shape, sort) pair of `lists` that no index in `indexes` covers, described for a failure message. */
export function uncoveredShapes(indexes: readonly IndexSpec[], lists: readonly ListShape[]): string[] {
  const out: string[] = [];
  for (const shape of lists) {
    for (const sort of shapeSorts(shape)) {
      if (!coveringIndex(indexes, shape, sort)) {
        const s = sort.map((k) => `${k.direction === -1 ? '-' : ''}${k.field}`).join(',');
        out.push(`${shape.query}: equal [${shape.equal.join(', ')}] sort ${s}: no index is [${shape.equal.join(', ')}] (any order) + ${s} (or reversed) + id`);
      }
    }
  }
  return out;
}

/** An index in MongoDB-like key notation, descending fields with `-`: `indexOn('projectId', '-createdAt', 'id')`. */
export function indexOn(...fields: string[]): IndexSpec {
  return { fields: fields.map((f): SortKey => (f.startsWith('-') ? { field: f.slice(1), direction: -1 } : { field: f, direction: 1 })) };
}


/**
 * The indexes that cover `shapes` and nothing more: for each sort a shape must serve, its equality
 * fields, then the sort, then `id`. Read models whose lists are all declared take their indexes
 * from here instead of restating them.
 */
export function indexesFor(shapes: ListShape[]): IndexSpec[] {
  const out = new Map<string, IndexSpec>();
  for (const shape of shapes) {
    for (const sort of shapeSorts(shape)) {
      const keys = [...shape.equal, ...sort.filter((k) => !shape.equal.includes(k.field)).map((k) => (k.direction < 0 ? `-${k.field}` : k.field)), 'id'];
      out.set(keys.join(','), indexOn(...keys));
    }
  }
  return [...out.values()];
}
