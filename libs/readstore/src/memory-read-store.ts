/**
 * The embedded default ReadStore: everything in Maps, documents deep-cloned (structuredClone) on the
 * way in and out so callers can never mutate stored state. Query semantics follow MongoDB for the
 * allowed subset (see filter.ts); unique indexes are enforced and throw DuplicateKeyError.
 *
 * Every declared index is also an ordered structure (OrderedIndex: key fields + id), kept up to date
 * on each write. A find whose equality (or `$in`) fields lead an index and whose sort is the rest of
 * its key (see list-shapes.ts) walks that index from the page's position and takes `total` from
 * the range sizes: O(log n + page), no scan. Other filters are checked while walking; `total` then
 * comes from range counts where indexes allow it (`$ne` as "all minus the equal ones"), else from
 * counting the smallest indexed range. A query no index orders scans the smallest indexed range
 * matching its equalities (or the whole collection) and sorts.
 */
import { DuplicateKeyError, InvalidDocumentError, InvalidQueryError } from './errors';
import { compareValues, compileFilter, compileSort, compareStrings, indexName, normalizeQuery, resolvePath, seekId, seekPast, typeRank, validateDoc, validateIndexSpec, MISSING, type NormalizedQuery } from './filter';
import { META_COLLECTION } from './filter';
import { keyWithId, servesOrder } from './list-shapes';
import { OrderedIndex, type Entry } from './ordered-index';
import type { Filter, FindQuery, FindResult, FindStats, IndexSpec, ReadCollection, ReadDoc, ReadStore, Scalar, SortKey, WriteOp } from './read-store.port';

/** Canonical string for an index key value (numbers are numbers whatever their spelling). */
function keyPart(v: unknown): string {
  const rank = typeRank(v as never);
  if (rank === 1) return 'n';
  if (rank === 2) return `#${Object.is(v, -0) ? 0 : v}`;
  if (rank === 3) return `s${JSON.stringify(v)}`;
  if (rank === 8) return v ? 'T' : 'F';
  return `o${JSON.stringify(v)}`;
}

class UniqueIndex {
  /** index key -> id of the document holding it */
  private readonly owners = new Map<string, string>();
  readonly name: string;
  private readonly paths: string[][];

  constructor(readonly spec: IndexSpec) {
    this.name = indexName(spec.fields);
    this.paths = spec.fields.map((f) => f.field.split('.'));
  }

  /** All index keys of a document: missing = null (as MongoDB), arrays index every element. */
  keysOf(doc: ReadDoc): string[] {
    let combos: string[] = [''];
    for (const segs of this.paths) {
      const parts = new Set<string>();
      if (segs.length === 1 && segs[0] === 'id') parts.add(keyPart(doc.id));
      else
        for (const r of resolvePath(doc, segs)) {
          if (r === MISSING) parts.add(keyPart(null));
          else if (Array.isArray(r)) {
            if (r.length === 0) parts.add('u'); // MongoDB indexes [] as undefined
            for (const el of r) parts.add(keyPart(el));
          } else parts.add(keyPart(r));
        }
      const next: string[] = [];
      for (const c of combos) for (const p of parts) next.push(c ? `${c}|${p}` : p);
      combos = next;
    }
    return [...new Set(combos)];
  }

  conflict(doc: ReadDoc): string | undefined {
    for (const k of this.keysOf(doc)) {
      const owner = this.owners.get(k);
      if (owner !== undefined && owner !== doc.id) return k;
    }
    return undefined;
  }

  add(doc: ReadDoc): void {
    for (const k of this.keysOf(doc)) this.owners.set(k, doc.id);
  }

  remove(doc: ReadDoc): void {
    for (const k of this.keysOf(doc)) if (this.owners.get(k) === doc.id) this.owners.delete(k);
  }

  clear(): void {
    this.owners.clear();
  }
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Keeps the first k entries (by cmp) of a stream: O(n log k) instead of sorting everything. */
function topK<E>(entries: Iterable<E>, k: number, cmp: (a: E, b: E) => number): E[] {
  const top: E[] = [];
  if (k <= 0) return top;
  for (const e of entries) {
    if (top.length === k && cmp(e, top[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(top[mid]!, e) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, e);
    if (top.length > k) top.pop();
  }
  return top;
}

/** A declared index as an ordered structure: one entry per document, its key values then its id. */
class OrderedListIndex {
  readonly name: string;
  /** The key with the id tie-breaker implied at its end. */
  readonly key: SortKey[];
  readonly tree: OrderedIndex<Entry>;
  /** Documents with an array (or several values) under a key field: MongoDB would index each element, so the index orders nothing and is not used while any exists. */
  readonly multikey = new Set<string>();
  private readonly paths: Array<string[] | null>;
  private readonly dirs: number[];
  readonly cmp: (a: Entry, b: Entry) => number;

  constructor(spec: IndexSpec) {
    this.name = indexName(spec.fields);
    this.key = keyWithId(spec.fields);
    this.paths = this.key.map((k) => (k.field === 'id' ? null : k.field.split('.')));
    this.dirs = this.key.map((k) => k.direction);
    const n = this.key.length;
    const dirs = this.dirs;
    this.cmp = (a, b) => {
      for (let i = 0; i < n; i++) {
        const c = compareValues(a[i], b[i]);
        if (c !== 0) return dirs[i]! * c;
      }
      return 0;
    };
    this.tree = new OrderedIndex(this.cmp);
  }

  get usable(): boolean {
    return this.multikey.size === 0;
  }

  /** The document's entry, or null when a key field holds an array (multikey). Missing = null, as MongoDB indexes it. */
  keyOf(doc: ReadDoc): Entry | null {
    const out = new Array<unknown>(this.paths.length);
    for (let i = 0; i < this.paths.length; i++) {
      const segs = this.paths[i];
      if (segs === null) {
        out[i] = doc.id;
        continue;
      }
      let v: unknown;
      if (segs.length === 1) v = Object.prototype.hasOwnProperty.call(doc, segs[0]!) ? doc[segs[0]!] : undefined;
      else {
        const r = resolvePath(doc, segs);
        if (r.length !== 1) return null;
        v = r[0] === MISSING ? undefined : r[0];
      }
      if (Array.isArray(v)) return null;
      out[i] = v === undefined ? null : v;
    }
    return out;
  }

  load(docs: Iterable<ReadDoc>): void {
    this.multikey.clear();
    const entries: Entry[] = [];
    for (const d of docs) {
      const k = this.keyOf(d);
      if (k) entries.push(k);
      else this.multikey.add(d.id);
    }
    this.tree.load(entries);
  }

  replace(old: ReadDoc | undefined, doc: ReadDoc | undefined): void {
    const oldKey = old ? this.keyOf(old) : null;
    const newKey = doc ? this.keyOf(doc) : null;
    if (oldKey && newKey && this.cmp(oldKey, newKey) === 0) return;
    if (old) {
      if (oldKey) this.tree.delete(oldKey);
      else this.multikey.delete(old.id);
    }
    if (doc) {
      if (newKey) this.tree.insert(newKey);
      else this.multikey.add(doc.id);
    }
  }

  /** Positions [lo, hi) of the entries whose leading key fields equal `values`. */
  range(values: readonly unknown[]): [number, number] {
    const n = values.length;
    if (n === 0) return [0, this.tree.size];
    const dirs = this.dirs;
    const cmpPrefix = (e: Entry) => {
      for (let i = 0; i < n; i++) {
        const c = compareValues(e[i], values[i]);
        if (c !== 0) return dirs[i]! * c;
      }
      return 0;
    };
    return [this.tree.lowerBound((e) => cmpPrefix(e) < 0), this.tree.lowerBound((e) => cmpPrefix(e) <= 0)];
  }

  /** The ranges of every combination of `values[i]` (the candidate values of key field i). */
  ranges(values: ReadonlyArray<readonly unknown[]>): Array<[number, number]> {
    let combos: unknown[][] = [[]];
    for (const vs of values) combos = combos.flatMap((c) => vs.map((v) => [...c, v]));
    return combos.map((c) => this.range(c)).filter(([lo, hi]) => hi > lo);
  }
}

/** How a find's filter constrains one field, for planning. */
type FieldCondition = { kind: 'eq'; values: [Scalar] } | { kind: 'in'; values: Scalar[] } | { kind: 'ne'; value: Scalar } | { kind: 'other' };

/** Equalities (one value), `$in` (several, deduplicated) and `$ne` by field; null when a `$in: []` matches nothing. */
function classify(filter: Filter): Map<string, FieldCondition> | null {
  const out = new Map<string, FieldCondition>();
  for (const [field, cond] of Object.entries(filter)) {
    if (field === 'id') out.set(field, { kind: 'other' });
    else if (cond === null || typeof cond !== 'object') out.set(field, { kind: 'eq', values: [cond] });
    else {
      const ops = Object.keys(cond);
      const c = cond as Record<string, unknown>;
      if (ops.length === 1 && ops[0] === '$eq') out.set(field, { kind: 'eq', values: [c.$eq as Scalar] });
      else if (ops.length === 1 && ops[0] === '$in') {
        const values = [...(c.$in as Scalar[])].sort(compareValues).filter((v, i, a) => i === 0 || compareValues(a[i - 1], v) !== 0);
        if (values.length === 0) return null;
        out.set(field, { kind: 'in', values });
      } else if (ops.length === 1 && ops[0] === '$ne') out.set(field, { kind: 'ne', value: c.$ne as Scalar });
      else out.set(field, { kind: 'other' });
    }
  }
  return out;
}

const pointValues = (c: FieldCondition | undefined): Scalar[] | null => (c && (c.kind === 'eq' || c.kind === 'in') ? c.values : null);

/** At most this many ranges (products of `$in` values) are merged; beyond, an index is not used. */
const MAX_RANGES = 256;

interface IndexPlan {
  kind: 'index';
  index: OrderedListIndex;
  prefix: number;
  reverse: boolean;
  ranges: Array<[number, number]>;
  size: number;
  /** Filter fields not in the index prefix: checked on each walked document. */
  residual: string[];
  /** Entry positions and directions of the sort's keys (but equalities): the order merging several ranges. */
  mergeKeys: Array<{ pos: number; dir: number }>;
}

interface RangeSource {
  index: OrderedListIndex;
  ranges: Array<[number, number]>;
  size: number;
}

interface ScanPlan {
  kind: 'scan';
  /** The smallest indexed range holding every match, or null: the whole collection. */
  source: RangeSource | null;
}

/** What a find does, for tests and diagnostics (`MemoryReadCollection.explain`). */
export interface MemoryQueryPlan {
  plan: 'index' | 'scan';
  /** The index walked in order, or the one whose range was scanned. */
  index: string | null;
  reverse?: boolean;
  residual: string[];
  /** How `total` is obtained: range sizes, range counts ($ne as all minus equal), or counting the matches one by one. */
  total: 'ranges' | 'counts' | 'matches';
}

export class MemoryReadCollection<T extends ReadDoc = ReadDoc> implements ReadCollection<T> {
  private readonly docs = new Map<string, T>();
  private uniques: UniqueIndex[] = [];
  private indexes: IndexSpec[] = [];
  private ordered: OrderedListIndex[] = [];

  /** `stats`: shared by every collection of a store (MemoryReadStore.stats). */
  constructor(readonly name: string, private readonly stats: FindStats = { seeks: 0, skipped: 0 }) {}

  get size(): number {
    return this.docs.size;
  }

  async get(id: string): Promise<T | null> {
    const d = this.docs.get(id);
    return d === undefined ? null : clone(d);
  }

  async getMany(ids: string[]): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      const d = this.docs.get(id);
      if (d !== undefined) out.push(clone(d));
    }
    return out;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const { items } = await this.find({ filter, limit: 1 });
    return items[0] ?? null;
  }

  /** How `find(query)` would run (validates the query like find). */
  explain(query: FindQuery): MemoryQueryPlan {
    const q = normalizeQuery(query);
    const conds = classify(q.filter);
    if (!conds) return { plan: 'index', index: null, residual: [], total: 'ranges' };
    const plan = this.plan(q, conds);
    if (plan.kind === 'scan') return { plan: 'scan', index: plan.source?.index.name ?? null, residual: Object.keys(q.filter), total: 'matches' };
    const total = plan.residual.length === 0 ? 'ranges' : this.countByRanges(conds) !== null ? 'counts' : 'matches';
    return { plan: 'index', index: plan.index.name, reverse: plan.reverse, residual: plan.residual, total };
  }

  async find(query: FindQuery): Promise<FindResult<T>> {
    let q = normalizeQuery(query);
    // Where the page starts in the whole match (a seek's `skip` is 0): the uncounted `total` is offset + items.
    const offset = q.skip;
    const seek = seekId(query);
    if (seek) q = seekPast(q, this.docs.get(seek.id) ?? null, seek.direction);
    if (q.after) this.stats.seeks++;
    this.stats.skipped += q.skip;
    const found = this.page(q, query.withTotal !== false, offset);
    // A `beforeId` seek read the page in the reversed order: it is answered in the query's.
    if (q.reversed) found.items.reverse();
    return found;
  }

  /** The page `q` names (after its seek, if any): `offset` is where it starts in the whole match. */
  private page(q: NormalizedQuery, wantTotal: boolean, offset: number): FindResult<T> {
    const conds = classify(q.filter);
    if (!conds) return { items: [], total: wantTotal ? 0 : offset };
    const plan = this.plan(q, conds);
    if (plan.kind === 'scan') return this.scan(q, plan.source, wantTotal, offset);

    const end = q.limit === undefined ? Infinity : q.skip + q.limit;
    const items: T[] = [];
    // A keyset seek (skip 0) starts each range at the first entry after the key: the page costs its own entries.
    const from = q.after ? { ...plan, ranges: this.seekRanges(plan, q.sort, q.after) } : plan;
    if (plan.residual.length === 0) {
      // Every entry of the ranges matches: the page is positions [skip, skip + limit) (of what follows the seek's key).
      if (q.limit !== 0) for (const id of this.walk(from, q.skip, end)) items.push(clone(this.docs.get(id)!));
      return { items, total: wantTotal ? plan.size : offset + items.length };
    }
    const pred = compileFilter(q.filter);
    let counted = wantTotal ? this.countByRanges(conds) : null;
    // Walk past the page only when the matches must be counted one by one (from the ranges' start: a seek's pages before count too).
    if (wantTotal && counted === null && q.after) {
      counted = 0;
      for (const id of this.walk(plan, 0, Infinity)) if (pred(this.docs.get(id)!)) counted++;
    }
    const walkAll = wantTotal && counted === null;
    let matched = 0;
    if (q.limit !== 0 || walkAll)
      for (const id of this.walk(from, 0, Infinity)) {
        const doc = this.docs.get(id)!;
        if (!pred(doc)) continue;
        if (matched >= q.skip && matched < end) items.push(clone(doc));
        matched++;
        if (matched >= end && !walkAll) break;
      }
    return { items, total: !wantTotal ? offset + items.length : (counted ?? matched) };
  }

  /**
   * Each of the plan's ranges cut to the entries after `values` in the query's order. Within a range
   * the prefix fields are fixed and the rest of the index key is the sort (servesOrder), so the
   * seek's position is one index entry (the range's prefix values, then the seek's) and its place
   * one `lowerBound`: O(log n) per range, no walk from the range start and no document read.
   */
  private seekRanges(plan: IndexPlan, sort: SortKey[], values: ReadonlyArray<string | number | boolean>): Array<[number, number]> {
    const { index, prefix, reverse } = plan;
    const valueOf = new Map(sort.map((k, i) => [k.field, values[i]]));
    const out: Array<[number, number]> = [];
    for (const [lo, hi] of plan.ranges) {
      const head = index.tree.at(lo)!;
      const target: Entry = index.key.map((k, i) => (i < prefix ? head[i] : valueOf.get(k.field)));
      // Forward, "after" is above the target in index order; backward, below it.
      const at = reverse ? index.tree.lowerBound((e) => index.cmp(e, target) < 0) : index.tree.lowerBound((e) => index.cmp(e, target) <= 0);
      const cut: [number, number] = reverse ? [lo, Math.min(hi, at)] : [Math.max(lo, at), hi];
      if (cut[1] > cut[0]) out.push(cut);
    }
    return out;
  }

  /** Ids of the entries at merged positions [from, to) of the plan's ranges, in the query's order. */
  private *walk(plan: IndexPlan, from: number, to: number): Generator<string> {
    const { index, ranges, reverse } = plan;
    const idAt = index.key.findIndex((k) => k.field === 'id');
    if (ranges.length === 1) {
      const [lo, hi] = ranges[0]!;
      const n = Math.min(hi - lo, to) - from;
      const entries = reverse ? index.tree.walk(hi - from - n, hi - from, true) : index.tree.walk(lo + from, lo + from + n);
      for (const e of entries) yield e[idAt] as string;
      return;
    }
    // Several ranges (`$in` values in the prefix), each in the query's order: merged by the sort's
    // keys (the `$in` fields among them vary between ranges).
    const keys = plan.mergeKeys;
    const cmp = (a: Entry, b: Entry) => {
      for (const { pos, dir } of keys) {
        const c = compareValues(a[pos], b[pos]);
        if (c !== 0) return dir * c;
      }
      return 0;
    };
    const heads = ranges.map(([lo, hi]) => {
      const it = index.tree.walk(lo, hi, reverse);
      const first = it.next();
      return { it, cur: first.done ? null : first.value };
    });
    for (let at = 0; at < to; at++) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const c = heads[i]!.cur;
        if (c !== null && (best < 0 || cmp(c, heads[best]!.cur!) < 0)) best = i;
      }
      if (best < 0) return;
      const h = heads[best]!;
      const e = h.cur!;
      const next = h.it.next();
      h.cur = next.done ? null : next.value;
      if (at >= from) yield e[idAt] as string;
    }
  }

  /**
   * The index serving the query in order with the fewest entries to walk, or a scan of the
   * smallest indexed range matching the equalities when none does or walking it would pass
   * over many more entries than that range holds.
   */
  private plan(q: NormalizedQuery, conds: Map<string, FieldCondition>): IndexPlan | ScanPlan {
    const eqFields = new Set([...conds].filter(([, c]) => c.kind === 'eq').map(([f]) => f));
    let best: IndexPlan | null = null;
    let source: RangeSource | null = null;
    for (const index of this.ordered) {
      if (!index.usable) continue;
      let lead = 0;
      while (lead < index.key.length && pointValues(conds.get(index.key[lead]!.field))) lead++;
      if (lead > 0) {
        const ranges = this.rangesOf(index, lead, conds);
        if (ranges) {
          const size = sizeOf(ranges);
          if (!source || size < source.size) source = { index, ranges, size };
        }
      }
      for (let prefix = lead; prefix >= 0; prefix--) {
        const head = index.key.slice(0, prefix).map((k) => k.field);
        const fixed = new Set([...eqFields, ...head]);
        const order = servesOrder(index.key, prefix, fixed, q.sort);
        if (!order) continue;
        const ranges = this.rangesOf(index, prefix, conds);
        if (!ranges) break;
        const size = sizeOf(ranges);
        const residual = [...conds.keys()].filter((f) => !head.includes(f));
        const cost = residual.length > 0 ? size : 0;
        const bestCost = best ? (best.residual.length > 0 ? best.size : 0) : Infinity;
        if (cost < bestCost || (cost === bestCost && best && prefix > best.prefix)) {
          const mergeKeys = q.sort.filter((k) => !eqFields.has(k.field)).map((k) => ({ pos: index.key.findIndex((f) => f.field === k.field), dir: k.direction }));
          best = { kind: 'index', index, prefix, reverse: order.reverse, ranges, size, residual, mergeKeys };
        }
        break;
      }
    }
    if (best && (best.residual.length === 0 || !source || source.size * 4 >= best.size)) return best;
    return { kind: 'scan', source };
  }

  private rangesOf(index: OrderedListIndex, prefix: number, conds: Map<string, FieldCondition>): Array<[number, number]> | null {
    const values = index.key.slice(0, prefix).map((k) => pointValues(conds.get(k.field))!);
    if (values.reduce((n, v) => n * v.length, 1) > MAX_RANGES) return null;
    return index.ranges(values);
  }

  /**
   * `total` from range sizes when the filter has only equalities, `$in` and `$ne`: the count of the
   * equalities, minus (inclusion-exclusion) those also equal to a `$ne` value. Null when a term has
   * no index led by exactly its fields, or another condition is present.
   */
  private countByRanges(conds: Map<string, FieldCondition>): number | null {
    const points = new Map<string, readonly unknown[]>();
    const nes: Array<[string, Scalar]> = [];
    for (const [f, c] of conds) {
      if (c.kind === 'eq' || c.kind === 'in') points.set(f, c.values);
      else if (c.kind === 'ne') nes.push([f, c.value]);
      else return null;
    }
    if (nes.length > 3) return null;
    let total = 0;
    for (let mask = 0; mask < 1 << nes.length; mask++) {
      const fields = new Map(points);
      let sign = 1;
      nes.forEach(([f, v], i) => {
        if (mask & (1 << i)) {
          fields.set(f, [v]);
          sign = -sign;
        }
      });
      const n = this.countExactly(fields);
      if (n === null) return null;
      total += sign * n;
    }
    return total;
  }

  /** Documents whose fields equal one of the given values each, from an index led by exactly those fields. */
  private countExactly(fields: Map<string, readonly unknown[]>): number | null {
    if (fields.size === 0) return this.docs.size;
    for (const index of this.ordered) {
      if (!index.usable || index.key.length < fields.size) continue;
      const head = index.key.slice(0, fields.size);
      if (!head.every((k) => fields.has(k.field))) continue;
      const values = head.map((k) => fields.get(k.field)!);
      if (values.reduce((n, v) => n * v.length, 1) > MAX_RANGES) continue;
      return sizeOf(index.ranges(values));
    }
    return null;
  }

  /** Filters the source (an indexed range, or every document) and sorts the matches. */
  private scan(q: NormalizedQuery, source: RangeSource | null, wantTotal: boolean, offset: number): FindResult<T> {
    const pred = compileFilter(q.filter);
    const all: T[] = [];
    if (source) {
      const idAt = source.index.key.findIndex((k) => k.field === 'id');
      for (const [lo, hi] of source.ranges)
        for (const e of source.index.tree.walk(lo, hi)) {
          const d = this.docs.get(e[idAt] as string)!;
          if (pred(d)) all.push(d);
        }
    } else for (const d of this.docs.values()) if (pred(d)) all.push(d);
    // `total` counts the whole match; a seek's page comes from what follows its key.
    const seek = q.after ? afterPredicate<T>(q.sort, q.after) : null;
    const matched = seek ? all.filter(seek) : all;
    const total = all.length;
    const n = matched.length;
    if (q.limit === 0 || q.skip >= n) return { items: [], total: wantTotal ? total : offset };

    const sort = compileSort<T>(q.sort);
    const idOnly = q.sort.length === 1 && q.sort[0]!.field === 'id';
    const end = q.limit === undefined ? n : Math.min(n, q.skip + q.limit);
    let page: T[];
    if (idOnly) {
      const dir = q.sort[0]!.direction;
      const cmp = (a: T, b: T) => dir * compareStrings(a.id, b.id);
      page = end < n / 4 ? topK(matched, end, cmp) : matched.sort(cmp);
    } else {
      const keyed = matched.map((doc) => ({ doc, keys: sort.keys(doc) }));
      const cmp = (a: (typeof keyed)[number], b: (typeof keyed)[number]) => sort.compare(a.keys, b.keys);
      page = (end < n / 4 ? topK(keyed, end, cmp) : keyed.sort(cmp)).map((e) => e.doc);
    }
    const items = page.slice(q.skip, end).map(clone);
    return { items, total: wantTotal ? total : offset + items.length };
  }

  async write(ops: WriteOp<T>[]): Promise<void> {
    for (const op of ops) {
      if (op.kind === 'put') {
        validateDoc(op.doc);
        const doc = clone(op.doc);
        const old = this.docs.get(doc.id);
        for (const u of this.uniques) {
          const key = u.conflict(doc);
          if (key !== undefined)
            throw new DuplicateKeyError(this.name, `E11000 duplicate key error collection: ${this.name} index: ${u.name} dup key: ${key} (document ${doc.id})`, u.name);
        }
        for (const u of this.uniques) {
          if (old) u.remove(old);
          u.add(doc);
        }
        for (const o of this.ordered) o.replace(old, doc);
        this.docs.set(doc.id, doc);
      } else if (op.kind === 'delete') {
        if (typeof op.id !== 'string') throw new InvalidDocumentError('delete needs a string id');
        const old = this.docs.get(op.id);
        if (old === undefined) continue;
        for (const u of this.uniques) u.remove(old);
        for (const o of this.ordered) o.replace(old, undefined);
        this.docs.delete(op.id);
      } else {
        throw new InvalidDocumentError(`unknown write op ${JSON.stringify((op as { kind?: unknown }).kind)}`);
      }
    }
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const spec of indexes) {
      validateIndexSpec(spec);
      const name = indexName(spec.fields);
      const existing = this.indexes.find((i) => indexName(i.fields) === name);
      if (existing) {
        if (!!existing.unique !== !!spec.unique) throw new InvalidQueryError(`index ${name} already exists on ${this.name} with different options`);
        continue;
      }
      if (spec.fields.length === 1 && spec.fields[0]!.field === 'id') {
        this.indexes.push(clone(spec));
        continue; // the documents' map
      }
      if (spec.unique) {
        const u = new UniqueIndex(clone(spec));
        for (const d of this.docs.values()) {
          const key = u.conflict(d);
          if (key !== undefined) throw new DuplicateKeyError(this.name, `E11000 duplicate key error collection: ${this.name} index: ${name} dup key: ${key}`, name);
          u.add(d);
        }
        this.uniques.push(u);
      }
      const o = new OrderedListIndex(clone(spec));
      o.load(this.docs.values());
      this.ordered.push(o);
      this.indexes.push(clone(spec));
    }
  }

  async drop(): Promise<void> {
    this.docs.clear();
    this.uniques = [];
    this.indexes = [];
    this.ordered = [];
  }
}

function sizeOf(ranges: Array<[number, number]>): number {
  return ranges.reduce((n, [lo, hi]) => n + hi - lo, 0);
}

export class MemoryReadStore implements ReadStore {
  readonly kind = 'memory' as const;
  /** Seeks taken and documents skipped by the finds of every collection (tests prove a cursor page skips nothing). */
  readonly stats: FindStats = { seeks: 0, skipped: 0 };
  private readonly collections = new Map<string, MemoryReadCollection<ReadDoc>>();
  private readonly meta = new Map<string, unknown>();

  collection<T extends ReadDoc = ReadDoc>(physicalName: string): ReadCollection<T> {
    if (typeof physicalName !== 'string' || physicalName.length === 0) throw new InvalidQueryError('collection name must be a non-empty string');
    if (physicalName === META_COLLECTION) throw new InvalidQueryError(`collection name ${META_COLLECTION} is reserved for meta data`);
    let c = this.collections.get(physicalName);
    if (!c) {
      c = new MemoryReadCollection<ReadDoc>(physicalName, this.stats);
      this.collections.set(physicalName, c);
    }
    return c as unknown as ReadCollection<T>;
  }

  async getMeta<T = unknown>(key: string): Promise<T | null> {
    return this.meta.has(key) ? (clone(this.meta.get(key)) as T) : null;
  }

  async setMeta<T = unknown>(key: string, value: T): Promise<void> {
    this.meta.set(key, value === undefined ? null : clone(value));
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

/** Whether a document comes after `values` (the keyset seek's position) in the order of `sort`. */
function afterPredicate<D extends { id: string }>(sort: SortKey[], values: ReadonlyArray<string | number | boolean>): (doc: D) => boolean {
  const order = compileSort<D>(sort);
  const position: Record<string, unknown> = {};
  sort.forEach((k, i) => {
    const segments = k.field.split('.');
    let at = position;
    for (const seg of segments.slice(0, -1)) at = (at[seg] ??= {}) as Record<string, unknown>;
    at[segments[segments.length - 1]!] = values[i];
  });
  const key = order.keys(position as D);
  return (doc) => order.compare(order.keys(doc), key) > 0;
}
