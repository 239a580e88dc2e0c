import { MemoryReadStore } from '../src/memory-read-store';
import type { ReadDoc } from '../src/read-store.port';
import { testReadStore } from './read-store.contract';

testReadStore('MemoryReadStore', async () => {
  const store = new MemoryReadStore();
  return { store, cleanup: () => store.close() };
});

describe('MemoryReadStore (adapter specifics)', () => {
  it('keeps 100k documents and answers filtered, sorted, paged queries quickly', async () => {
    const store = new MemoryReadStore();
    const c = store.collection<ReadDoc & { n: number; status: string; owner: { team: string } }>('big');
    const N = 100_000;
    for (let from = 0; from < N; from += 5000) {
      await c.write(
        Array.from({ length: 5000 }, (_, j) => {
          const i = from + j;
          return { kind: 'put' as const, doc: { id: `r${(i * 7919) % N}`, _position: i + 1, n: i, status: i % 10 === 0 ? 'failed' : 'ok', owner: { team: `t${i % 50}` } } };
        }),
      );
    }
    let t = Date.now();
    const page = await c.find({ filter: { status: 'failed', 'owner.team': { $in: ['t0', 't10'] } }, sort: [{ field: 'n', direction: -1 }], skip: 10, limit: 20 });
    const filteredMs = Date.now() - t;
    expect(page.total).toBe(4000); // i % 10 == 0 and i % 50 in {0, 10}
    const expectedN: number[] = [];
    for (let i = N - 1; i >= 0; i--) if (i % 10 === 0 && (i % 50 === 0 || i % 50 === 10)) expectedN.push(i);
    expect(page.items.map((d) => d.n)).toEqual(expectedN.slice(10, 30));
    expect(page.items.every((d, k, a) => k === 0 || a[k - 1]!.n > d.n)).toBe(true);

    t = Date.now();
    const first = await c.find({ limit: 25 });
    const defaultSortMs = Date.now() - t;
    expect(first.total).toBe(N);
    expect(first.items.map((d) => d.id)).toEqual([...Array.from({ length: N }, (_, i) => `r${i}`)].sort().slice(0, 25));
    expect(filteredMs).toBeLessThan(2000);
    expect(defaultSortMs).toBeLessThan(2000);
  });
});
