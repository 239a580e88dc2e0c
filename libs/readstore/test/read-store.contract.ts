/**
 * One contract suite for every ReadStore adapter. Each spec file calls `testReadStore` with a factory
 * that returns a fresh, empty store (and a cleanup that removes everything it created).
 */
import { DuplicateKeyError, InvalidDocumentError, InvalidQueryError } from '../src/errors';
import type { Filter, FindQuery, ReadCollection, ReadDoc, ReadStore, SortKey } from '../src/read-store.port';

export interface ReadStoreFixture {
  store: ReadStore;
  cleanup(): Promise<void>;
  /** How the adapter runs a find, when it can tell: 'index' (walked in order) or 'scan'. */
  plan?(collection: ReadCollection, query: FindQuery): 'index' | 'scan';
}

type Doc = ReadDoc & Record<string, unknown>;

export function testReadStore(name: string, factory: () => Promise<ReadStoreFixture>): void {
  describe(`ReadStore contract: ${name}`, () => {
    let fx: ReadStoreFixture | undefined;
    let seq = 0;
    const run = Math.random().toString(36).slice(2, 8);

    beforeAll(async () => {
      fx = await factory();
    });

    afterAll(async () => {
      if (fx) await fx.cleanup();
    });

    const store = (): ReadStore => {
      if (!fx) throw new Error('store factory failed (see beforeAll error)');
      return fx.store;
    };
    /** A fresh collection per test, so tests never see each other's data. */
    const fresh = <T extends ReadDoc = Doc>(): ReadCollection<T> => store().collection<T>(`c_${run}_${++seq}`);
    const put = (coll: ReadCollection<Doc>, docs: Doc[]) => coll.write(docs.map((doc) => ({ kind: 'put' as const, doc })));
    const ids = async (coll: ReadCollection<Doc>, query: FindQuery) => (await coll.find(query)).items.map((d) => d.id);

    describe('basics', () => {
      it('pings and reports its kind', async () => {
        await expect(store().ping()).resolves.toBeUndefined();
        expect(['memory', 'mongodb']).toContain(store().kind);
      });

      it('puts, gets, replaces and deletes by id', async () => {
        const c = fresh();
        expect(await c.get('a')).toBeNull();
        await put(c, [{ id: 'a', _position: 1, name: 'first', nested: { x: [1, 2, { y: 'z' }] } }]);
        const got = await c.get('a');
        expect(got).toEqual({ id: 'a', _position: 1, name: 'first', nested: { x: [1, 2, { y: 'z' }] } });
        expect(Object.keys(got!)).not.toContain('_id');

        // replace = whole document, fields not in the new version disappear
        await put(c, [{ id: 'a', _position: 2, other: true }]);
        expect(await c.get('a')).toEqual({ id: 'a', _position: 2, other: true });

        await c.write([{ kind: 'delete', id: 'a' }]);
        expect(await c.get('a')).toBeNull();
        // deleting something absent is not an error
        await expect(c.write([{ kind: 'delete', id: 'a' }])).resolves.toBeUndefined();
        await expect(c.write([])).resolves.toBeUndefined();
      });

      it('applies ops in order within one write call', async () => {
        const c = fresh();
        await c.write([
          { kind: 'put', doc: { id: 'x', _position: 1, v: 1 } },
          { kind: 'put', doc: { id: 'y', _position: 2, v: 1 } },
          { kind: 'put', doc: { id: 'x', _position: 3, v: 2 } },
          { kind: 'delete', id: 'y' },
          { kind: 'put', doc: { id: 'z', _position: 4, v: 1 } },
          { kind: 'delete', id: 'z' },
          { kind: 'put', doc: { id: 'z', _position: 5, v: 3 } },
        ]);
        expect(await c.get('x')).toEqual({ id: 'x', _position: 3, v: 2 });
        expect(await c.get('y')).toBeNull();
        expect(await c.get('z')).toEqual({ id: 'z', _position: 5, v: 3 });
        expect((await c.find({})).total).toBe(2);
      });

      it('getMany returns the existing documents in request order, without duplicates', async () => {
        const c = fresh();
        await put(c, ['a', 'b', 'c'].map((id, i) => ({ id, _position: i + 1, i })));
        const got = await c.getMany(['c', 'missing', 'a', 'c']);
        expect(got).toEqual([
          { id: 'c', _position: 3, i: 2 },
          { id: 'a', _position: 1, i: 0 },
        ]);
        expect(await c.getMany([])).toEqual([]);
        expect(await c.getMany(['nope'])).toEqual([]);
      });

      it('findOne returns the lowest id among matches, or null', async () => {
        const c = fresh();
        await put(c, [
          { id: 'm2', _position: 1, kind: 'vm' },
          { id: 'm1', _position: 2, kind: 'vm' },
          { id: 'm3', _position: 3, kind: 'disk' },
        ]);
        expect(await c.findOne({ kind: 'vm' })).toEqual({ id: 'm1', _position: 2, kind: 'vm' });
        expect((await c.findOne({ kind: 'disk' }))?.id).toBe('m3');
        expect(await c.findOne({ kind: 'net' })).toBeNull();
        expect((await c.findOne({}))?.id).toBe('m1');
      });

      it('rejects documents without a string id or with a reserved _id', async () => {
        const c = fresh();
        await expect(c.write([{ kind: 'put', doc: { _position: 1 } as unknown as Doc }])).rejects.toBeInstanceOf(InvalidDocumentError);
        await expect(c.write([{ kind: 'put', doc: { id: 'a', _id: 'b', _position: 1 } }])).rejects.toBeInstanceOf(InvalidDocumentError);
        expect((await c.find({})).total).toBe(0);
      });

      it('returns isolated copies: mutating inputs or outputs never changes stored state', async () => {
        const c = fresh();
        const input: Doc = { id: 'a', _position: 1, tags: ['x'], nested: { n: 1 } };
        await put(c, [input]);
        (input.tags as string[]).push('mutated');
        (input.nested as { n: number }).n = 99;

        const got = (await c.get('a'))!;
        expect(got).toEqual({ id: 'a', _position: 1, tags: ['x'], nested: { n: 1 } });
        (got.tags as string[]).push('again');
        (got.nested as { n: number }).n = 42;
        got._position = 1000;

        const [fromMany] = await c.getMany(['a']);
        (fromMany!.tags as string[]).length = 0;
        const fromFind = (await c.find({})).items[0]!;
        (fromFind.nested as { n: number }).n = 7;
        const fromOne = (await c.findOne({ id: 'a' }))!;
        fromOne.extra = true;

        expect(await c.get('a')).toEqual({ id: 'a', _position: 1, tags: ['x'], nested: { n: 1 } });
        expect((await c.find({ filter: { tags: 'x' } })).total).toBe(1);
      });

      it('drop removes documents and indexes; dropping an absent collection is fine', async () => {
        const c = fresh();
        await c.ensureIndexes([{ fields: [{ field: 'email', direction: 1 }], unique: true }]);
        await put(c, [
          { id: 'a', _position: 1, email: 'x@y' },
          { id: 'b', _position: 2, email: 'z@y' },
        ]);
        await c.drop();
        expect(await c.get('a')).toBeNull();
        expect(await c.find({})).toEqual({ items: [], total: 0 });
        // the unique index went with it
        await put(c, [
          { id: 'a', _position: 1, email: 'same' },
          { id: 'b', _position: 2, email: 'same' },
        ]);
        expect((await c.find({ filter: { email: 'same' } })).total).toBe(2);
        await expect(fresh().drop()).resolves.toBeUndefined();
      });

      it('writes 2,000 documents in one call and deletes 1,000 in another', async () => {
        const c = fresh();
        const docs: Doc[] = Array.from({ length: 2000 }, (_, i) => ({ id: `d${String(i).padStart(5, '0')}`, _position: i + 1, n: i, even: i % 2 === 0 }));
        await put(c, docs);
        expect((await c.find({ limit: 0 })).total).toBe(2000);
        expect(await c.get('d01234')).toEqual({ id: 'd01234', _position: 1235, n: 1234, even: true });
        const last = await c.find({ sort: [{ field: 'n', direction: -1 }], limit: 3 });
        expect(last.items.map((d) => d.n)).toEqual([1999, 1998, 1997]);
        expect(last.total).toBe(2000);

        await c.write(docs.filter((d) => d.even).map((d) => ({ kind: 'delete' as const, id: d.id })));
        const rest = await c.find({ filter: { even: true }, limit: 1 });
        expect(rest).toEqual({ items: [], total: 0 });
        expect((await c.find({ limit: 0 })).total).toBe(1000);
      });
    });

    describe('filters', () => {
      let c: ReadCollection<Doc>;
      beforeAll(async () => {
        c = fresh();
        await put(c, [
          { id: 'a', _position: 1, n: 1, s: 'apple', b: true, tags: ['x', 'y'], nested: { k: 'v1', num: 10 }, items: [{ sku: 'p1', qty: 1 }, { sku: 'p2', qty: 5 }], maybe: null },
          { id: 'b', _position: 2, n: 2, s: 'banana', b: false, tags: ['y'], nested: { k: 'v2', num: 20 }, items: [{ sku: 'p3', qty: 2 }] },
          { id: 'c', _position: 3, n: 3, s: 'cherry', tags: [], nested: { k: 'v1' }, maybe: 'here' },
          { id: 'd', _position: 4, n: '3', s: 'date', b: true, tags: 'x' },
          { id: 'e', _position: 5, n: null, s: 'Elder' },
        ]);
      });

      const cases: [string, Filter, string[]][] = [
        ['empty filter', {}, ['a', 'b', 'c', 'd', 'e']],
        ['implicit equality (string)', { s: 'apple' }, ['a']],
        ['equality does not coerce types (number)', { n: 3 }, ['c']],
        ['equality does not coerce types (string)', { n: '3' }, ['d']],
        ['equality (boolean)', { b: true }, ['a', 'd']],
        ['equality with null matches null and missing', { maybe: null }, ['a', 'b', 'd', 'e']],
        ['$eq null on a field present everywhere', { n: { $eq: null } }, ['e']],
        ['$eq', { s: { $eq: 'banana' } }, ['b']],
        ['$ne matches missing fields too', { b: { $ne: true } }, ['b', 'c', 'e']],
        ['$ne null means present and not null', { maybe: { $ne: null } }, ['c']],
        ['$in with mixed types', { n: { $in: [1, '3', 'nope'] } }, ['a', 'd']],
        ['$in with null matches missing', { maybe: { $in: [null, 'here'] } }, ['a', 'b', 'c', 'd', 'e']],
        ['$in with empty list matches nothing', { s: { $in: [] } }, []],
        ['$nin', { n: { $nin: [1, 2] } }, ['c', 'd', 'e']],
        ['$gt uses type bracketing (strings/null excluded)', { n: { $gt: 1 } }, ['b', 'c']],
        ['$gte', { n: { $gte: 2 } }, ['b', 'c']],
        ['$lt', { n: { $lt: 3 } }, ['a', 'b']],
        ['$lte', { n: { $lte: 3 } }, ['a', 'b', 'c']],
        ['several operators on one field (range)', { n: { $gt: 1, $lte: 2 } }, ['b']],
        ['string range, code point order (uppercase first)', { s: { $gte: 'banana', $lt: 'date' } }, ['b', 'c']],
        ['string $lt', { s: { $lt: 'a' } }, ['e']],
        ['$exists true (null counts as present)', { maybe: { $exists: true } }, ['a', 'c']],
        ['$exists false', { b: { $exists: false } }, ['c', 'e']],
        ['dotted path equality', { 'nested.k': 'v1' }, ['a', 'c']],
        ['dotted path range', { 'nested.num': { $gte: 15 } }, ['b']],
        ['dotted path $exists false', { 'nested.num': { $exists: false } }, ['c', 'd', 'e']],
        ['dotted path null matches missing parents', { 'nested.num': null }, ['c', 'd', 'e']],
        ['scalar equality on an array field = contains', { tags: 'x' }, ['a', 'd']],
        ['$in on an array field = any element', { tags: { $in: ['y'] } }, ['a', 'b']],
        ['$ne on an array field = contains none', { tags: { $ne: 'x' } }, ['b', 'c', 'e']],
        ['$nin on an array field', { tags: { $nin: ['x', 'y'] } }, ['c', 'e']],
        ['$exists on an array field (empty array exists)', { tags: { $exists: true } }, ['a', 'b', 'c', 'd']],
        ['dotted path through an array of documents', { 'items.sku': 'p3' }, ['b']],
        ['range through an array of documents', { 'items.qty': { $gt: 4 } }, ['a']],
        ['numeric path segment indexes arrays', { 'tags.0': 'y' }, ['b']],
        ['several fields are ANDed', { b: true, 'nested.k': 'v1' }, ['a']],
        ['id equality', { id: 'c' }, ['c']],
        ['id $in', { id: { $in: ['a', 'e', 'zz'] } }, ['a', 'e']],
        ['id range', { id: { $gt: 'c' } }, ['d', 'e']],
        ['_position range', { _position: { $gte: 2, $lt: 4 } }, ['b', 'c']],
      ];
      it.each(cases)('%s', async (_title, filter, expected) => {
        const r = await c.find({ filter });
        expect(r.items.map((d) => d.id)).toEqual(expected);
        expect(r.total).toBe(expected.length);
        expect((await c.findOne(filter))?.id ?? null).toBe(expected[0] ?? null);
      });

      it('returns full documents from a filtered find', async () => {
        const r = await c.find({ filter: { s: 'date' } });
        expect(r).toEqual({ items: [{ id: 'd', _position: 4, n: '3', s: 'date', b: true, tags: 'x' }], total: 1 });
      });

      const invalid: [string, unknown][] = [
        ['unknown operator', { n: { $regex: 'a' } }],
        ['top-level $or', { $or: [{ n: 1 }] }],
        ['object equality', { nested: { k: 'v1' } }],
        ['array equality', { tags: ['x'] }],
        ['$in without array', { n: { $in: 1 } }],
        ['$exists non-boolean', { n: { $exists: 1 } }],
        ['empty operator object', { n: {} }],
        ['_id path', { _id: 'a' }],
        ['undefined value', { n: undefined }],
        ['mixing operator and field', { n: { $gt: 1, k: 2 } }],
      ];
      it.each(invalid)('rejects an invalid filter: %s', async (_title, filter) => {
        await expect(c.find({ filter: filter as Filter })).rejects.toBeInstanceOf(InvalidQueryError);
        await expect(c.findOne(filter as Filter)).rejects.toBeInstanceOf(InvalidQueryError);
      });
    });

    describe('sort, skip, limit, total', () => {
      it('sorts by several keys asc/desc with missing/null first and id as the final tie-breaker', async () => {
        const c = fresh();
        await put(c, [
          { id: 'k5', _position: 1, g: 'a', score: 2 },
          { id: 'k1', _position: 2, g: 'b', score: 2 },
          { id: 'k3', _position: 3, g: 'b', score: 1 },
          { id: 'k4', _position: 4, g: 'a', score: 3 },
          { id: 'k2', _position: 5, g: 'a', score: 2 },
          { id: 'k6', _position: 6, score: 5 },
          { id: 'k7', _position: 7, g: null, score: 2 },
        ]);
        expect(await ids(c, {})).toEqual(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']);
        expect(await ids(c, { sort: [{ field: 'g', direction: 1 }, { field: 'score', direction: -1 }] })).toEqual(['k6', 'k7', 'k4', 'k2', 'k5', 'k1', 'k3']);
        expect(await ids(c, { sort: [{ field: 'g', direction: -1 }, { field: 'score', direction: 1 }] })).toEqual(['k3', 'k1', 'k2', 'k5', 'k4', 'k7', 'k6']);
        expect(await ids(c, { sort: [{ field: 'score', direction: -1 }] })).toEqual(['k6', 'k4', 'k1', 'k2', 'k5', 'k7', 'k3']);
        expect(await ids(c, { sort: [{ field: 'score', direction: 1 }] })).toEqual(['k3', 'k1', 'k2', 'k5', 'k7', 'k4', 'k6']);
        expect(await ids(c, { sort: [{ field: 'id', direction: -1 }] })).toEqual(['k7', 'k6', 'k5', 'k4', 'k3', 'k2', 'k1']);
        expect(await ids(c, { sort: [{ field: 'score', direction: 1 }, { field: 'id', direction: -1 }] })).toEqual(['k3', 'k7', 'k5', 'k2', 'k1', 'k4', 'k6']);
        // paging through a sort with ties is stable thanks to the id tie-breaker
        const sort = [{ field: 'score', direction: -1 as const }];
        const pages = [...(await ids(c, { sort, limit: 3 })), ...(await ids(c, { sort, skip: 3, limit: 3 })), ...(await ids(c, { sort, skip: 6, limit: 3 }))];
        expect(pages).toEqual(['k6', 'k4', 'k1', 'k2', 'k5', 'k7', 'k3']);
      });

      it('sorts by dotted paths', async () => {
        const c = fresh();
        await put(c, [
          { id: 'a', _position: 1, meta: { rank: 3 } },
          { id: 'b', _position: 2, meta: { rank: 1 } },
          { id: 'c', _position: 3, meta: {} },
          { id: 'd', _position: 4, meta: { rank: 2 } },
        ]);
        expect(await ids(c, { sort: [{ field: 'meta.rank', direction: 1 }] })).toEqual(['c', 'b', 'd', 'a']);
        expect(await ids(c, { sort: [{ field: 'meta.rank', direction: -1 }] })).toEqual(['a', 'd', 'b', 'c']);
      });

      it('orders mixed types like MongoDB: null/missing < numbers < strings < booleans', async () => {
        const c = fresh();
        await put(c, [
          { id: 'm1', _position: 1, v: 'b' },
          { id: 'm2', _position: 2, v: 10 },
          { id: 'm3', _position: 3, v: 2.5 },
          { id: 'm4', _position: 4 },
          { id: 'm5', _position: 5, v: 'B' },
          { id: 'm6', _position: 6, v: true },
          { id: 'm7', _position: 7, v: null },
          { id: 'm8', _position: 8, v: -1 },
          { id: 'm9', _position: 9, v: false },
        ]);
        expect(await ids(c, { sort: [{ field: 'v', direction: 1 }] })).toEqual(['m4', 'm7', 'm8', 'm3', 'm2', 'm5', 'm1', 'm9', 'm6']);
        expect(await ids(c, { sort: [{ field: 'v', direction: -1 }] })).toEqual(['m6', 'm9', 'm1', 'm5', 'm2', 'm3', 'm8', 'm4', 'm7']);
      });

      it('compares strings by code point (not UTF-16 units, not locale)', async () => {
        const c = fresh();
        const values = ['a', 'Z', 'é', '\u{1F600}', '\uFF5E', 'ab', ''];
        await put(c, values.map((s, i) => ({ id: `s${i}`, _position: i + 1, s })));
        const got = (await c.find({ sort: [{ field: 's', direction: 1 }] })).items.map((d) => d.s);
        expect(got).toEqual(['', 'Z', 'a', 'ab', 'é', '\uFF5E', '\u{1F600}']);
        // ids too (the tie-breaker)
        const c2 = fresh();
        await put(c2, values.map((s, i) => ({ id: `x${s}`, _position: i + 1 })));
        expect(await ids(c2, {})).toEqual(['x', 'xZ', 'xa', 'xab', 'xé', 'x\uFF5E', 'x\u{1F600}']);
        expect((await c.find({ filter: { s: { $gt: '\uFF5E' } } })).items.map((d) => d.s)).toEqual(['\u{1F600}']);
      });

      it('sorts array fields by their smallest (asc) / largest (desc) element', async () => {
        const c = fresh();
        await put(c, [
          { id: 'r1', _position: 1, arr: [5, 1] },
          { id: 'r2', _position: 2, arr: [3] },
          { id: 'r3', _position: 3, arr: [2, 9] },
          { id: 'r4', _position: 4, arr: 4 },
        ]);
        expect(await ids(c, { sort: [{ field: 'arr', direction: 1 }] })).toEqual(['r1', 'r3', 'r2', 'r4']);
        expect(await ids(c, { sort: [{ field: 'arr', direction: -1 }] })).toEqual(['r3', 'r1', 'r4', 'r2']);
      });

      it('applies skip and limit after filter and sort; total ignores them', async () => {
        const c = fresh();
        await put(c, Array.from({ length: 25 }, (_, i) => ({ id: `p${String(i).padStart(2, '0')}`, _position: i + 1, n: i })));
        const filter: Filter = { n: { $gte: 5 } };
        const sort = [{ field: 'n', direction: -1 as const }];
        const page = await c.find({ filter, sort, skip: 3, limit: 5 });
        expect(page.items.map((d) => d.n)).toEqual([21, 20, 19, 18, 17]);
        expect(page.total).toBe(20);
        expect((await c.find({ filter, sort, limit: 2 })).items.map((d) => d.n)).toEqual([24, 23]);
        expect((await c.find({ filter, skip: 18 })).items.map((d) => d.n)).toEqual([23, 24]);
        expect(await c.find({ filter, skip: 20 })).toEqual({ items: [], total: 20 });
        expect(await c.find({ filter, skip: 100, limit: 10 })).toEqual({ items: [], total: 20 });
        expect(await c.find({ filter, limit: 0 })).toEqual({ items: [], total: 20 });
        const all = await c.find({ filter: { n: { $lt: 3 } } });
        expect(all).toEqual({ items: [0, 1, 2].map((n) => ({ id: `p0${n}`, _position: n + 1, n })), total: 3 });
      });

      it('skips the count when asked (withTotal: false): total is then skip + items', async () => {
        const c = fresh();
        await put(c, Array.from({ length: 12 }, (_, i) => ({ id: `w${String(i).padStart(2, '0')}`, _position: i + 1, n: i })));
        const sort = [{ field: 'n', direction: 1 as const }];
        const page = await c.find({ filter: { n: { $gte: 2 } }, sort, skip: 1, limit: 4, withTotal: false });
        expect(page).toEqual({ items: [3, 4, 5, 6].map((n) => ({ id: `w${String(n).padStart(2, '0')}`, _position: n + 1, n })), total: 5 });
        expect((await c.find({ filter: { n: { $gte: 2 } }, sort, skip: 1, limit: 4 })).total).toBe(10);
        expect(await c.find({ filter: { n: { $gte: 2 } }, skip: 50, withTotal: false })).toEqual({ items: [], total: 50 });
      });

      it('rejects invalid sort / paging arguments', async () => {
        const c = fresh();
        await expect(c.find({ skip: -1 })).rejects.toBeInstanceOf(InvalidQueryError);
        await expect(c.find({ limit: 1.5 })).rejects.toBeInstanceOf(InvalidQueryError);
        await expect(c.find({ sort: [{ field: 'a', direction: 2 as 1 }] })).rejects.toBeInstanceOf(InvalidQueryError);
        await expect(c.find({ sort: [{ field: '$a', direction: 1 }] })).rejects.toBeInstanceOf(InvalidQueryError);
        await expect(c.find({ sort: [{ field: 'a', direction: 1 }, { field: 'a', direction: -1 }] })).rejects.toBeInstanceOf(InvalidQueryError);
      });
    });

    describe('indexes', () => {
      it('enforces a unique index with DuplicateKeyError; same-id replace and freed keys are fine', async () => {
        const c = fresh();
        const idx = [{ fields: [{ field: 'email', direction: 1 as const }], unique: true }];
        await c.ensureIndexes(idx);
        await c.ensureIndexes(idx); // idempotent
        await put(c, [
          { id: 'a', _position: 1, email: 'a@x' },
          { id: 'b', _position: 2, email: 'b@x' },
        ]);
        const err = await put(c, [{ id: 'c', _position: 3, email: 'a@x' }]).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(DuplicateKeyError);
        expect((err as DuplicateKeyError).collection).toBe(c.name);
        expect(await c.get('c')).toBeNull();

        await put(c, [{ id: 'a', _position: 4, email: 'a@x', v: 2 }]); // same doc, same key
        expect(await c.get('a')).toEqual({ id: 'a', _position: 4, email: 'a@x', v: 2 });
        await put(c, [{ id: 'a', _position: 5, email: 'new@x' }]); // key moves
        await put(c, [{ id: 'c', _position: 6, email: 'a@x' }]); // old key is free again
        await c.write([{ kind: 'delete', id: 'b' }]);
        await put(c, [{ id: 'd', _position: 7, email: 'b@x' }]); // freed by delete
        expect((await c.find({ sort: [{ field: 'email', direction: 1 }] })).items.map((d) => [d.id, d.email])).toEqual([
          ['c', 'a@x'],
          ['d', 'b@x'],
          ['a', 'new@x'],
        ]);
      });

      it('stops an ordered write at the violating op (earlier ops stay applied)', async () => {
        const c = fresh();
        await c.ensureIndexes([{ fields: [{ field: 'code', direction: 1 }], unique: true }]);
        await expect(
          c.write([
            { kind: 'put', doc: { id: 'p', _position: 1, code: 'Q' } },
            { kind: 'put', doc: { id: 'q', _position: 2, code: 'Q' } },
            { kind: 'put', doc: { id: 'r', _position: 3, code: 'R' } },
          ]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.get('p')).toEqual({ id: 'p', _position: 1, code: 'Q' });
        expect(await c.get('q')).toBeNull();
        expect(await c.get('r')).toBeNull();
      });

      it('enforces compound unique indexes on the combination only', async () => {
        const c = fresh();
        await c.ensureIndexes([
          { fields: [{ field: 'tenant', direction: 1 }, { field: 'name', direction: 1 }], unique: true },
          { fields: [{ field: 'createdAt', direction: -1 }] },
        ]);
        await put(c, [
          { id: '1', _position: 1, tenant: 't1', name: 'web' },
          { id: '2', _position: 2, tenant: 't2', name: 'web' },
          { id: '3', _position: 3, tenant: 't1', name: 'db' },
        ]);
        await expect(put(c, [{ id: '4', _position: 4, tenant: 't2', name: 'web' }])).rejects.toBeInstanceOf(DuplicateKeyError);
        expect((await c.find({})).total).toBe(3);
      });

      it('enforces unique indexes on dotted paths', async () => {
        const c = fresh();
        await c.ensureIndexes([{ fields: [{ field: 'spec.hostname', direction: 1 }], unique: true }]);
        await put(c, [
          { id: 'h1', _position: 1, spec: { hostname: 'alpha' } },
          { id: 'h2', _position: 2, spec: { hostname: 'beta' } },
        ]);
        await expect(put(c, [{ id: 'h3', _position: 3, spec: { hostname: 'alpha' } }])).rejects.toBeInstanceOf(DuplicateKeyError);
      });

      it('refuses to build a unique index over existing duplicates', async () => {
        const c = fresh();
        await put(c, [
          { id: 'a', _position: 1, email: 'dup' },
          { id: 'b', _position: 2, email: 'dup' },
        ]);
        await expect(c.ensureIndexes([{ fields: [{ field: 'email', direction: 1 }], unique: true }])).rejects.toBeInstanceOf(DuplicateKeyError);
        // without the index nothing is enforced
        await put(c, [{ id: 'c', _position: 3, email: 'dup' }]);
        expect((await c.find({ filter: { email: 'dup' } })).total).toBe(3);
      });
    });

    describe('pages served by list indexes', () => {
      // The shape of a list route: equality on projectId (and status), `$ne`/`$in` on status, sorted
      // by one field either way with the id tie-breaker; indexes as the projections declare them.
      const indexes = [
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'createdAt', direction: -1 as const }, { field: 'id', direction: 1 as const }] },
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'createdAt', direction: 1 as const }, { field: 'id', direction: 1 as const }] },
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'name', direction: 1 as const }, { field: 'id', direction: 1 as const }] },
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'name', direction: -1 as const }, { field: 'id', direction: 1 as const }] },
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'status', direction: 1 as const }, { field: 'id', direction: 1 as const }] },
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'status', direction: -1 as const }, { field: 'id', direction: 1 as const }] },
        { fields: [{ field: 'projectId', direction: 1 as const }, { field: 'status', direction: 1 as const }, { field: 'createdAt', direction: -1 as const }, { field: 'id', direction: 1 as const }] },
      ];
      type Row = Doc & { projectId: string; status: string; createdAt?: string | null; name?: string | null };
      const statuses = ['active', 'stopped', 'terminated', 'creating'];
      let seed = 7;
      const rnd = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const row = (i: number, pos: number): Row => {
        const r: Row = { id: `i${String(rnd(1000)).padStart(3, '0')}-${i}`, _position: pos, projectId: i % 5 === 0 ? 'p2' : 'p1', status: statuses[rnd(4)]! };
        const t = rnd(12); // few distinct times: many ties
        if (t > 0) r.createdAt = t === 1 ? null : `2026-01-01T00:00:${String(t).padStart(2, '0')}.000Z`;
        const n = rnd(8);
        if (n > 0) r.name = n === 1 ? null : `web-${n % 4}`;
        return r;
      };
      /** MongoDB's order for these values: missing = null < strings; then the id tie-breaker. */
      const cmpVal = (a: unknown, b: unknown) => {
        const x = a ?? null;
        const y = b ?? null;
        if (x === y) return 0;
        if (x === null) return -1;
        if (y === null) return 1;
        return (x as string) < (y as string) ? -1 : 1;
      };
      const expected = (rows: Row[], keep: (r: Row) => boolean, sort: SortKey[]) =>
        rows
          .filter(keep)
          .sort((a, b) => {
            for (const k of [...sort, { field: 'id', direction: 1 }]) {
              const c = cmpVal(a[k.field], b[k.field]);
              if (c !== 0) return k.direction * c;
            }
            return 0;
          })
          .map((r) => r.id);

      const queries: Array<{ title: string; filter: Filter; keep: (r: Row) => boolean }> = [
        { title: 'equality', filter: { projectId: 'p1' }, keep: (r) => r.projectId === 'p1' },
        { title: 'two equalities', filter: { projectId: 'p1', status: 'active' }, keep: (r) => r.projectId === 'p1' && r.status === 'active' },
        { title: '$ne', filter: { projectId: 'p1', status: { $ne: 'terminated' } }, keep: (r) => r.projectId === 'p1' && r.status !== 'terminated' },
        { title: '$in', filter: { projectId: 'p1', status: { $in: ['stopped', 'active'] } }, keep: (r) => r.projectId === 'p1' && ['active', 'stopped'].includes(r.status) },
      ];
      const by = (field: string, direction: 1 | -1): SortKey => ({ field, direction });
      const sorts: SortKey[][] = [
        [by('createdAt', -1)],
        [by('createdAt', 1)],
        [by('name', 1)],
        [by('name', -1)],
        [by('status', 1)],
        [by('status', -1)],
        [by('createdAt', 1), by('id', -1)], // the (createdAt -1, id 1) index walked backwards
      ];

      const checkAll = async (c: ReadCollection<Row>, rows: Row[]) => {
        for (const q of queries)
          for (const sort of sorts) {
            const want = expected(rows, q.keep, sort);
            if (fx?.plan) expect({ q: q.title, sort, plan: fx.plan(c as unknown as ReadCollection, { filter: q.filter, sort }) }).toEqual({ q: q.title, sort, plan: 'index' });
            const all = await c.find({ filter: q.filter, sort });
            expect({ q: q.title, sort, ids: all.items.map((d) => d.id), total: all.total }).toEqual({ q: q.title, sort, ids: want, total: want.length });
            // pages of 7 put together are the whole list; each page's total is the full count
            const paged: string[] = [];
            for (let skip = 0; skip < want.length + 7; skip += 7) {
              const page = await c.find({ filter: q.filter, sort, skip, limit: 7 });
              expect(page.total).toBe(want.length);
              paged.push(...page.items.map((d) => d.id));
            }
            expect(paged).toEqual(want);
          }
      };

      it('orders, pages and counts like a sort of the whole match, through updates and deletes', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes(indexes);
        let pos = 0;
        const rows = new Map<string, Row>();
        for (let i = 0; i < 45; i++) {
          const r = row(i, ++pos);
          rows.set(r.id, r);
        }
        await c.write([...rows.values()].map((doc) => ({ kind: 'put' as const, doc })));
        await checkAll(c, [...rows.values()]);

        // updates that move documents between positions and between ranges, deletes, new documents
        const ids = [...rows.keys()].sort();
        const changed: Row[] = [
          { ...rows.get(ids[3]!)!, _position: ++pos, createdAt: '2026-01-01T00:00:59.000Z' }, // newest now
          { ...rows.get(ids[8]!)!, _position: ++pos, status: 'terminated' }, // leaves the $ne list
          { ...rows.get(ids[13]!)!, _position: ++pos, projectId: 'p2' }, // leaves the project
          { ...rows.get(ids[21]!)!, _position: ++pos, name: 'a-first' }, // first by name
          { ...rows.get(ids[30]!)!, _position: ++pos, createdAt: undefined, name: undefined }, // fields removed: sorts as null
        ];
        for (const r of changed) {
          for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
          rows.set(r.id, r);
        }
        await c.write(changed.map((doc) => ({ kind: 'put' as const, doc })));
        const gone = [ids[1]!, ids[17]!, ids[40]!];
        await c.write(gone.map((id) => ({ kind: 'delete' as const, id })));
        for (const id of gone) rows.delete(id);
        const added = [row(100, ++pos), row(101, ++pos), row(102, ++pos)];
        for (const r of added) rows.set(r.id, r);
        await c.write(added.map((doc) => ({ kind: 'put' as const, doc })));
        await checkAll(c, [...rows.values()]);
      });

      it('skips the count on request and answers an empty page past the end', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes(indexes);
        await c.write(Array.from({ length: 12 }, (_, i) => ({ kind: 'put' as const, doc: { id: `z${String(i).padStart(2, '0')}`, _position: i + 1, projectId: 'p1', status: i % 3 === 0 ? 'terminated' : 'active', createdAt: `2026-01-0${1 + (i % 4)}` } })));
        const sort = [{ field: 'createdAt', direction: -1 as const }];
        const filter: Filter = { projectId: 'p1', status: { $ne: 'terminated' } };
        expect(await c.find({ filter, sort, skip: 2, limit: 3, withTotal: false })).toEqual({ items: (await c.find({ filter, sort })).items.slice(2, 5), total: 5 });
        expect(await c.find({ filter, sort, skip: 8, limit: 3 })).toEqual({ items: [], total: 8 });
        expect(await c.find({ filter: { projectId: 'p1' }, sort, skip: 20, limit: 3 })).toEqual({ items: [], total: 12 });
        expect(await c.find({ filter: { projectId: 'p1' }, sort, limit: 0 })).toEqual({ items: [], total: 12 });
        expect(await c.find({ filter: { projectId: 'p1', status: { $in: [] } }, sort })).toEqual({ items: [], total: 0 });
      });
    });

    describe('keyset seek (after)', () => {
      type Row = Doc & { projectId: string; status: string; createdAt: string; meta: { rank: number } };
      const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({
        id: `k${String((i * 17) % 40).padStart(2, '0')}`,
        _position: i + 1,
        projectId: i % 4 === 0 ? 'p2' : 'p1',
        status: ['active', 'stopped', 'terminated'][i % 3]!,
        createdAt: `2026-01-0${1 + (i % 5)}T00:00:00.000Z`, // ties: the id decides
        meta: { rank: (i * 7) % 6 },
      }));
      const by = (field: string, direction: 1 | -1): SortKey => ({ field, direction });
      const sorts: SortKey[][] = [[by('createdAt', -1)], [by('createdAt', 1)], [by('status', 1), by('createdAt', -1)], [by('createdAt', 1), by('id', -1)], [by('meta.rank', -1)], [by('id', 1)]];
      const filters: Filter[] = [{ projectId: 'p1' }, { projectId: 'p1', status: { $ne: 'terminated' } }, { projectId: 'p1', status: { $in: ['stopped', 'active'] } }, {}];

      it('walks page after page from the last item, as a whole-match sort orders them', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes([{ fields: [by('projectId', 1), by('createdAt', -1), by('id', 1)] }, { fields: [by('projectId', 1), by('createdAt', 1), by('id', 1)] }]);
        await c.write(rows.map((doc) => ({ kind: 'put' as const, doc })));
        for (const filter of filters)
          for (const sort of sorts) {
            const want = (await c.find({ filter, sort })).items.map((d) => d.id);
            const walked: string[] = [];
            let after: Row | undefined;
            for (let n = 0; n < 20; n++) {
              const page = await c.find({ filter, sort, limit: 6, withTotal: false, ...(after ? { after } : {}) });
              expect(page.total).toBe(page.items.length);
              walked.push(...page.items.map((d) => d.id));
              if (page.items.length < 6) break;
              after = page.items[page.items.length - 1];
            }
            expect({ filter, sort, walked }).toEqual({ filter, sort, walked: want });
            expect(want.length).toBeGreaterThan(5);
          }
      });

      it('starts after a position that is not a stored document, and answers nothing past the end', async () => {
        const c = fresh<Row>();
        await c.write(rows.map((doc) => ({ kind: 'put' as const, doc })));
        const sort = [by('createdAt', 1)];
        const all = (await c.find({ filter: { projectId: 'p1' }, sort })).items;
        const from = await c.find({ filter: { projectId: 'p1' }, sort, withTotal: false, after: { createdAt: '2026-01-03T00:00:00.000Z', id: 'k20' } });
        expect(from.items.map((d) => d.id)).toEqual(all.filter((d) => d.createdAt > '2026-01-03T00:00:00.000Z' || (d.createdAt === '2026-01-03T00:00:00.000Z' && d.id > 'k20')).map((d) => d.id));
        expect(await c.find({ filter: { projectId: 'p1' }, sort, withTotal: false, after: all[all.length - 1]! })).toEqual({ items: [], total: 0 });
      });

      it('needs withTotal false, no skip, and a value of each sort field', async () => {
        const c = fresh<Row>();
        const sort = [by('createdAt', 1)];
        const after = { id: 'k01', createdAt: '2026-01-01T00:00:00.000Z' };
        await expect(c.find({ sort, after })).rejects.toThrow(InvalidQueryError);
        await expect(c.find({ sort, after, withTotal: false, skip: 6 })).rejects.toThrow(InvalidQueryError);
        await expect(c.find({ sort, after: { id: 'k01' }, withTotal: false })).rejects.toThrow(/after.createdAt/);
        await expect(c.find({ sort, after: { id: 'k01', createdAt: null }, withTotal: false })).rejects.toThrow(InvalidQueryError);
        await expect(c.find({ sort, after: { createdAt: 'x' }, withTotal: false })).rejects.toThrow(/after.id/);
      });
    });

    describe('page by the previous page\'s last id (afterId)', () => {
      type Row = Doc & { projectId: string; status: string; createdAt: string; name: string };
      // 45 rows, 5 distinct createdAt and 3 names: long runs of ties that only the id orders.
      const rows: Row[] = Array.from({ length: 45 }, (_, i) => ({
        id: `a${String((i * 29) % 45).padStart(2, '0')}`,
        _position: i + 1,
        projectId: i % 5 === 0 ? 'p2' : 'p1',
        status: ['active', 'stopped', 'terminated'][i % 3]!,
        createdAt: `2026-02-0${1 + (i % 5)}T00:00:00.000Z`,
        name: ['web', 'db', 'cache'][i % 3]!,
      }));
      const by = (field: string, direction: 1 | -1): SortKey => ({ field, direction });
      const sorts: SortKey[][] = [[by('createdAt', -1)], [by('createdAt', 1)], [by('name', 1)], [by('name', -1)]];
      const filters: Filter[] = [{ projectId: 'p1' }, { projectId: 'p1', status: { $ne: 'terminated' } }, { projectId: 'p1', status: { $in: ['stopped', 'active'] } }];
      const indexes = [
        { fields: [by('projectId', 1), by('createdAt', -1), by('id', 1)] },
        { fields: [by('projectId', 1), by('createdAt', 1), by('id', 1)] },
        { fields: [by('projectId', 1), by('name', 1), by('id', 1)] },
        { fields: [by('projectId', 1), by('name', -1), by('id', 1)] },
        // `status $in` with the createdAt sorts: one range per status, merged (the memory store seeks in each)
        { fields: [by('projectId', 1), by('status', 1), by('createdAt', -1), by('id', 1)] },
      ];

      it('walks every page by the last id exactly as skip pages it, with the same totals, asc and desc', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes(indexes);
        await c.write(rows.map((doc) => ({ kind: 'put' as const, doc })));
        const limit = 4;
        const stats = store().stats!;
        const before = { ...stats };
        let seeks = 0;
        let skips = 0;
        for (const filter of filters)
          for (const sort of sorts) {
            const skipped: Array<{ ids: string[]; total: number }> = [];
            const sought: Array<{ ids: string[]; total: number }> = [];
            let last: string | undefined;
            for (let page = 0; page < 20; page++) {
              const bySkip = await c.find({ filter, sort, skip: page * limit, limit });
              const bySeek = await c.find({ filter, sort, skip: page * limit, limit, ...(last ? { afterId: last } : {}) });
              skips += page * limit;
              if (last) seeks++;
              skipped.push({ ids: bySkip.items.map((d) => d.id), total: bySkip.total });
              sought.push({ ids: bySeek.items.map((d) => d.id), total: bySeek.total });
              if (bySeek.items.length < limit) break;
              last = bySeek.items[bySeek.items.length - 1]!.id;
            }
            expect({ filter, sort, pages: sought }).toEqual({ filter, sort, pages: skipped });
            const all = (await c.find({ filter, sort })).items.map((d) => d.id);
            expect(sought.flatMap((p) => p.ids)).toEqual(all);
            expect(all.length).toBeGreaterThan(3 * limit);
          }
        // Every page after the first was sought, not skipped to: only the skip-paged reads skipped.
        expect({ seeks: stats.seeks - before.seeks, skipped: stats.skipped - before.skipped }).toEqual({ seeks, skipped: skips });
      });

      it('walks back from the last page by the first id (beforeId) exactly as skip pages it, with the same totals, asc and desc', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes(indexes);
        await c.write(rows.map((doc) => ({ kind: 'put' as const, doc })));
        const limit = 4;
        const stats = store().stats!;
        let seeks = 0;
        let skips = 0;
        for (const filter of filters)
          for (const sort of sorts) {
            const all = (await c.find({ filter, sort })).items.map((d) => d.id);
            expect(all.length).toBeGreaterThan(3 * limit);
            const lastPage = Math.ceil(all.length / limit) - 1;
            const skipped: Array<{ ids: string[]; total: number }> = [];
            const sought: Array<{ ids: string[]; total: number }> = [];
            const before = { ...stats };
            let first: string | undefined;
            for (let page = lastPage; page >= 0; page--) {
              const bySkip = await c.find({ filter, sort, skip: page * limit, limit });
              const bySeek = await c.find({ filter, sort, skip: page * limit, limit, ...(first ? { beforeId: first } : {}) });
              skips += page * limit;
              // the last page is reached by number; every page before it by the first id of the page after
              if (first) seeks++;
              else skips += page * limit;
              skipped.push({ ids: bySkip.items.map((d) => d.id), total: bySkip.total });
              sought.push({ ids: bySeek.items.map((d) => d.id), total: bySeek.total });
              first = bySeek.items[0]!.id;
            }
            expect({ filter, sort, pages: sought }).toEqual({ filter, sort, pages: skipped });
            expect(sought.reverse().flatMap((p) => p.ids)).toEqual(all);
            // Only the skip-paged reads and the last page skipped: the walk back skipped nothing.
            expect({ seeks: stats.seeks - before.seeks, skipped: stats.skipped - before.skipped }).toEqual({ seeks, skipped: skips });
            seeks = 0;
            skips = 0;
          }
      });

      it('falls back to skip when the last id is gone, matches no more, or names another tenant\'s document', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes(indexes);
        await c.write(rows.map((doc) => ({ kind: 'put' as const, doc })));
        const filter = { projectId: 'p1' };
        const sort = [by('createdAt', 1)];
        const page2 = await c.find({ filter, sort, skip: 4, limit: 4 });
        const foreign = rows.find((r) => r.projectId === 'p2')!.id;
        for (const afterId of ['nope', foreign]) expect(await c.find({ filter, sort, skip: 4, limit: 4, afterId })).toEqual(page2);
        // beforeId falls back to the page's skip in the query's own order, not the reversed one
        for (const beforeId of ['nope', foreign]) expect(await c.find({ filter, sort, skip: 4, limit: 4, beforeId })).toEqual(page2);
        await expect(c.find({ filter, sort, afterId: 5 as never })).rejects.toThrow(InvalidQueryError);
        await expect(c.find({ filter, sort, beforeId: 5 as never })).rejects.toThrow(InvalidQueryError);
        await expect(c.find({ filter, sort, beforeId: 'a01', afterId: 'a02' })).rejects.toThrow(InvalidQueryError);
      });

      it('counts nothing when asked not to, and still seeks', async () => {
        const c = fresh<Row>();
        await c.ensureIndexes(indexes);
        await c.write(rows.map((doc) => ({ kind: 'put' as const, doc })));
        const filter = { projectId: 'p1' };
        const sort = [by('name', -1)];
        const all = (await c.find({ filter, sort })).items;
        const skippedBefore = store().stats!.skipped;
        const page = await c.find({ filter, sort, skip: 8, limit: 4, afterId: all[7]!.id, withTotal: false });
        expect(page.items.map((d) => d.id)).toEqual(all.slice(8, 12).map((d) => d.id));
        // uncounted, total reads as where the page ends, as with skip
        expect(page.total).toBe(12);
        const back = await c.find({ filter, sort, skip: 4, limit: 4, beforeId: all[8]!.id, withTotal: false });
        expect(back.items.map((d) => d.id)).toEqual(all.slice(4, 8).map((d) => d.id));
        expect(back.total).toBe(8);
        expect(store().stats!.skipped).toBe(skippedBefore);
      });
    });

    describe('meta', () => {
      it('gets and sets objects, numbers and strings; absent keys are null', async () => {
        const s = store();
        const key = (k: string) => `${run}:${k}`;
        expect(await s.getMeta(key('nope'))).toBeNull();
        const value = { position: 42, map: { orders: 'orders_v2' }, list: [1, 'two', null, { three: true }] };
        await s.setMeta(key('obj'), value);
        expect(await s.getMeta(key('obj'))).toEqual(value);
        await s.setMeta(key('num'), 7);
        expect(await s.getMeta<number>(key('num'))).toBe(7);
        await s.setMeta(key('num'), 8);
        expect(await s.getMeta<number>(key('num'))).toBe(8);
        await s.setMeta(key('zero'), 0);
        expect(await s.getMeta<number>(key('zero'))).toBe(0);
        await s.setMeta(key('str'), 'hello');
        expect(await s.getMeta(key('str'))).toBe('hello');
        await s.setMeta(key('obj'), { position: 43 });
        expect(await s.getMeta(key('obj'))).toEqual({ position: 43 });
      });

      it('meta values are isolated copies', async () => {
        const s = store();
        const v = { position: 1, nested: { a: [1] } };
        await s.setMeta(`${run}:iso`, v);
        v.nested.a.push(2);
        const got = (await s.getMeta<typeof v>(`${run}:iso`))!;
        got.position = 99;
        expect(await s.getMeta(`${run}:iso`)).toEqual({ position: 1, nested: { a: [1] } });
      });

      it('meta does not show up in, or collide with, collections', async () => {
        const s = store();
        const c = fresh();
        await s.setMeta(`${run}:m`, { x: 1 });
        expect((await c.find({})).total).toBe(0);
        expect(() => s.collection('_meta')).toThrow(InvalidQueryError);
      });
    });
  });
}
