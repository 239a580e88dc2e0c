/**
 * The embedded default ReadStore: everything in Maps, documents deep-cloned (structuredClone) on the
 * way in and out so callers can never mutate stored state. Query semantics follow MongoDB for the
 * allowed subset (see filter.ts); unique indexes are enforced and throw DuplicateKeyError.
 */
import { DuplicateKeyError, InvalidDocumentError, InvalidQueryError } from './errors';
import { compareStrings, compileFilter, compileSort, indexName, normalizeQuery, resolvePath, typeRank, validateDoc, validateIndexSpec, MISSING } from './filter';
import { META_COLLECTION } from './filter';
import type { Filter, FindQuery, FindResult, IndexSpec, ReadCollection, ReadDoc, ReadStore, WriteOp } from './read-store.port';

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

export class MemoryReadCollection<T extends ReadDoc = ReadDoc> implements ReadCollection<T> {
  private readonly docs = new Map<string, T>();
  private uniques: UniqueIndex[] = [];
  private indexes: IndexSpec[] = [];

  constructor(readonly name: string) {}

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

  async find(query: FindQuery): Promise<FindResult<T>> {
    const q = normalizeQuery(query);
    const pred = compileFilter(q.filter);
    const matched: T[] = [];
    for (const d of this.docs.values()) if (pred(d)) matched.push(d);
    const total = matched.length;
    if (q.limit === 0 || q.skip >= total) return { items: [], total: query.withTotal === false ? q.skip : total };

    const sort = compileSort<T>(q.sort);
    const idOnly = q.sort.length === 1 && q.sort[0]!.field === 'id';
    const end = q.limit === undefined ? total : Math.min(total, q.skip + q.limit);
    let page: T[];
    if (idOnly) {
      const dir = q.sort[0]!.direction;
      const cmp = (a: T, b: T) => dir * compareStrings(a.id, b.id);
      page = end < total / 4 ? topK(matched, end, cmp) : matched.sort(cmp);
    } else {
      const keyed = matched.map((doc) => ({ doc, keys: sort.keys(doc) }));
      const cmp = (a: (typeof keyed)[number], b: (typeof keyed)[number]) => sort.compare(a.keys, b.keys);
      page = (end < total / 4 ? topK(keyed, end, cmp) : keyed.sort(cmp)).map((e) => e.doc);
    }
    const items = page.slice(q.skip, end).map(clone);
    return { items, total: query.withTotal === false ? q.skip + items.length : total };
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
        this.docs.set(doc.id, doc);
      } else if (op.kind === 'delete') {
        if (typeof op.id !== 'string') throw new InvalidDocumentError('delete needs a string id');
        const old = this.docs.get(op.id);
        if (old === undefined) continue;
        for (const u of this.uniques) u.remove(old);
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
      if (spec.unique && !(spec.fields.length === 1 && spec.fields[0]!.field === 'id')) {
        const u = new UniqueIndex(clone(spec));
        for (const d of this.docs.values()) {
          const key = u.conflict(d);
          if (key !== undefined) throw new DuplicateKeyError(this.name, `E11000 duplicate key error collection: ${this.name} index: ${name} dup key: ${key}`, name);
          u.add(d);
        }
        this.uniques.push(u);
      }
      this.indexes.push(clone(spec));
    }
  }

  async drop(): Promise<void> {
    this.docs.clear();
    this.uniques = [];
    this.indexes = [];
  }
}

export class MemoryReadStore implements ReadStore {
  readonly kind = 'memory' as const;
  private readonly collections = new Map<string, MemoryReadCollection<ReadDoc>>();
  private readonly meta = new Map<string, unknown>();

  collection<T extends ReadDoc = ReadDoc>(physicalName: string): ReadCollection<T> {
    if (typeof physicalName !== 'string' || physicalName.length === 0) throw new InvalidQueryError('collection name must be a non-empty string');
    if (physicalName === META_COLLECTION) throw new InvalidQueryError(`collection name ${META_COLLECTION} is reserved for meta data`);
    let c = this.collections.get(physicalName);
    if (!c) {
      c = new MemoryReadCollection<ReadDoc>(physicalName);
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
