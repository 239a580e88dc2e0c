import { MemoryReadCollection, MemoryReadStore } from '../src/memory-read-store';
import type { Filter, FindQuery, ReadDoc } from '../src/read-store.port';
import { testReadStore } from './read-store.contract';

testReadStore('MemoryReadStore', async () => {
  const store = new MemoryReadStore();
  return { store, cleanup: () => store.close(), plan: (c, query) => (c as MemoryReadCollection).explain(query).plan };
});

type Row = ReadDoc & { projectId?: string | null; status?: unknown; n?: number; name?: string | null };

const asc = (field: string) => ({ field, direction: 1 as const });
const desc = (field: string) => ({ field, direction: -1 as const });

describe('MemoryReadStore (adapter specifics)', () => {
  it('keeps 100k documents and answers filtered, sorted, paged queries, from an index when one serves them', async () => {
    const store = new MemoryReadStore();
    const N = 100_000;
    type Big = ReadDoc & { n: number; status: string; owner: { team: string } };
    const plain = store.collection<Big>('big') as MemoryReadCollection<Big>;
    const indexed = store.collection<Big>('big_indexed') as MemoryReadCollection<Big>;
    await indexed.ensureIndexes([{ fields: [asc('status'), asc('owner.team'), desc('n'), asc('id')] }]);
    for (let from = 0; from < N; from += 5000) {
      const ops = Array.from({ length: 5000 }, (_, j) => {
        const i = from + j;
        return { kind: 'put' as const, doc: { id: `r${(i * 7919) % N}`, _position: i + 1, n: i, status: i % 10 === 0 ? 'failed' : 'ok', owner: { team: `t${i % 50}` } } };
      });
      await plain.write(ops);
      await indexed.write(ops);
    }
    const query = { filter: { status: 'failed', 'owner.team': { $in: ['t0', 't10'] } }, sort: [desc('n')], skip: 10, limit: 20 };
    const expectedN: number[] = [];
    for (let i = N - 1; i >= 0; i--) if (i % 10 === 0 && (i % 50 === 0 || i % 50 === 10)) expectedN.push(i);
    for (const c of [plain, indexed]) {
      const page = await c.find(query);
      expect(page.total).toBe(4000); // i % 10 == 0 and i % 50 in {0, 10}
      expect(page.items.map((d) => d.n)).toEqual(expectedN.slice(10, 30));
    }
    expect(plain.explain(query)).toMatchObject({ plan: 'scan', index: null });
    expect(indexed.explain(query)).toMatchObject({ plan: 'index', index: 'status_1_owner.team_1_n_-1__id_1', residual: [], total: 'ranges' });

    const first = await plain.find({ limit: 25 });
    expect(first.total).toBe(N);
    expect(first.items.map((d) => d.id)).toEqual([...Array.from({ length: N }, (_, i) => `r${i}`)].sort().slice(0, 25));
  });

  it('serves the same pages from its indexes as from a sorted scan, through random writes', async () => {
    const store = new MemoryReadStore();
    const indexed = store.collection<Row>('indexed') as MemoryReadCollection<Row>;
    const plain = store.collection<Row>('plain') as MemoryReadCollection<Row>;
    const sortable = ['n', 'name', 'status'];
    await indexed.ensureIndexes([
      ...sortable.flatMap((f) => [{ fields: [asc('projectId'), asc(f), asc('id')] }, { fields: [asc('projectId'), desc(f), asc('id')] }]),
      ...['n', 'name'].flatMap((f) => [{ fields: [asc('projectId'), asc('status'), asc(f), asc('id')] }, { fields: [asc('projectId'), asc('status'), desc(f), asc('id')] }]),
    ]);
    let seed = 11;
    const rnd = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    const pick = <V>(vs: V[]): V => vs[rnd(vs.length)]!;
    const projects = ['p1', 'p2', null, undefined];
    const statuses = ['a', 'b', 'c', null, undefined, 2, true];
    const names = ['x', 'y', 'Y', 'é', '', null, undefined];
    let pos = 0;
    const randomDoc = (id: string): Row => {
      const d: Row = { id, _position: ++pos };
      const fields: Array<[string, unknown]> = [
        ['projectId', pick(projects)],
        ['status', pick(statuses)],
        ['n', rnd(6) === 0 ? undefined : rnd(20)],
        ['name', pick(names)],
      ];
      for (const [k, v] of fields) if (v !== undefined) d[k] = v;
      return d;
    };
    const ids = Array.from({ length: 120 }, (_, i) => `d${rnd(1000)}-${i}`);
    const queries: Filter[] = [
      { projectId: 'p1' },
      { projectId: null },
      { projectId: 'p2', status: 'a' },
      { projectId: 'p1', status: null },
      { projectId: 'p1', status: { $ne: 'a' } },
      { projectId: 'p1', status: { $ne: null } },
      { projectId: 'p1', status: { $in: ['a', 2, null] } },
      { projectId: { $in: ['p1', 'p2'] }, status: 'b' },
      { projectId: 'p1', n: { $gte: 5 } },
    ];
    for (let round = 0; round < 12; round++) {
      const ops = Array.from({ length: 40 }, () => (rnd(5) === 0 ? { kind: 'delete' as const, id: pick(ids) } : { kind: 'put' as const, doc: randomDoc(pick(ids)) }));
      await indexed.write(ops);
      await plain.write(ops);
      for (const filter of queries)
        for (const f of sortable)
          for (const sort of [[asc(f)], [desc(f)], [desc(f), desc('id')]]) {
            const skip = rnd(4) * 3;
            const limit = rnd(3) === 0 ? undefined : 1 + rnd(8);
            const q: FindQuery = { filter, sort, skip, limit };
            expect({ q, got: await indexed.find(q) }).toEqual({ q, got: await plain.find(q) });
            expect({ q, got: await indexed.find({ ...q, withTotal: false }) }).toEqual({ q, got: await plain.find({ ...q, withTotal: false }) });
          }
    }
    // the index path was the one compared
    expect(indexed.explain({ filter: { projectId: 'p1', status: { $ne: 'a' } }, sort: [desc('n')] })).toMatchObject({ plan: 'index', index: 'projectId_1_n_-1__id_1', residual: ['status'] });
    expect(indexed.explain({ filter: { projectId: 'p1', status: { $in: ['a', 'b'] } }, sort: [asc('name')] })).toMatchObject({ plan: 'index', index: 'projectId_1_status_1_name_1__id_1', residual: [], total: 'ranges' });
  });

  it('counts a $ne list from range sizes when an index is led by its fields, else match by match', async () => {
    const c = new MemoryReadStore().collection<Row>('ne') as MemoryReadCollection<Row>;
    await c.ensureIndexes([{ fields: [asc('projectId'), desc('n'), asc('id')] }]);
    await c.write(Array.from({ length: 30 }, (_, i) => ({ kind: 'put' as const, doc: { id: `x${i}`, _position: i + 1, projectId: 'p', status: i % 3 === 0 ? 'gone' : 'ok', n: i } })));
    const query = { filter: { projectId: 'p', status: { $ne: 'gone' } }, sort: [desc('n')], limit: 2 };
    expect(c.explain(query)).toMatchObject({ plan: 'index', total: 'matches' });
    expect(await c.find(query)).toMatchObject({ items: [{ n: 29 }, { n: 28 }], total: 20 });
    await c.ensureIndexes([{ fields: [asc('projectId'), asc('status'), asc('id')] }]);
    expect(c.explain(query)).toMatchObject({ plan: 'index', index: 'projectId_1_n_-1__id_1', total: 'counts' });
    expect(await c.find(query)).toMatchObject({ items: [{ n: 29 }, { n: 28 }], total: 20 });
  });

  it('stops using an index while a document holds an array under one of its fields (MongoDB would index each element)', async () => {
    const c = new MemoryReadStore().collection<Row>('multi') as MemoryReadCollection<Row>;
    await c.ensureIndexes([{ fields: [asc('projectId'), asc('status'), asc('id')] }]);
    await c.write([
      { kind: 'put', doc: { id: 'a', _position: 1, projectId: 'p', status: 'x' } },
      { kind: 'put', doc: { id: 'b', _position: 2, projectId: 'p', status: ['x', 'y'] } },
    ]);
    const query = { filter: { projectId: 'p', status: 'x' }, sort: [asc('status')] };
    expect(c.explain(query).plan).toBe('scan');
    expect((await c.find(query)).items.map((d) => d.id)).toEqual(['a', 'b']);
    await c.write([{ kind: 'put', doc: { id: 'b', _position: 3, projectId: 'p', status: 'y' } }]);
    expect(c.explain(query).plan).toBe('index');
    expect((await c.find(query)).items.map((d) => d.id)).toEqual(['a']);
  });

  it('scans the smallest indexed range matching the equalities when no index orders the query', async () => {
    const c = new MemoryReadStore().collection<Row>('fallback') as MemoryReadCollection<Row>;
    await c.ensureIndexes([{ fields: [asc('projectId'), desc('n'), asc('id')] }, { fields: [asc('status'), asc('id')] }]);
    await c.write(Array.from({ length: 50 }, (_, i) => ({ kind: 'put' as const, doc: { id: `y${String(i).padStart(2, '0')}`, _position: i + 1, projectId: 'p', status: i < 3 ? 'rare' : 'common', n: i % 7, name: `n${i % 5}` } })));
    const query = { filter: { projectId: 'p', status: 'rare' }, sort: [asc('name'), desc('n')] };
    expect(c.explain(query)).toMatchObject({ plan: 'scan', index: 'status_1__id_1' });
    expect(await c.find(query)).toEqual({ items: (await c.find({ filter: { status: 'rare' } })).items.sort((a, b) => (a.name! < b.name! ? -1 : a.name! > b.name! ? 1 : b.n! - a.n!)), total: 3 });
    // A walk in order whose residual filter keeps few entries costs more than sorting the small range.
    expect(c.explain({ filter: { projectId: 'p', status: 'rare' }, sort: [desc('n')] })).toMatchObject({ plan: 'scan', index: 'status_1__id_1' });
  });
});
