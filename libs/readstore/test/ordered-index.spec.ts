import { OrderedIndex } from '../src/ordered-index';

describe('OrderedIndex', () => {
  const cmp = (a: readonly unknown[], b: readonly unknown[]) => (a[0] as number) - (b[0] as number) || ((a[1] as string) < (b[1] as string) ? -1 : (a[1] as string) > (b[1] as string) ? 1 : 0);

  it('keeps entries in order with positions through inserts, deletes and bulk loads across many chunks', () => {
    const idx = new OrderedIndex<readonly [number, string]>(cmp);
    const ref: Array<readonly [number, string]> = [];
    let seed = 3;
    const rnd = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    const check = () => {
      ref.sort(cmp);
      expect(idx.size).toBe(ref.length);
      expect([...idx.walk(0, idx.size)]).toEqual(ref);
      expect([...idx.walk(0, idx.size, true)]).toEqual([...ref].reverse());
      for (let t = 0; t < 20; t++) {
        const p = rnd(ref.length + 2) - 1;
        expect(idx.at(p)).toEqual(ref[p]);
        const v = rnd(400);
        expect(idx.lowerBound((e) => e[0] < v)).toBe(ref.filter((e) => e[0] < v).length);
        const from = rnd(ref.length + 1);
        const to = from + rnd(50);
        expect([...idx.walk(from, to)]).toEqual(ref.slice(from, to));
        expect([...idx.walk(from, to, true)]).toEqual(ref.slice(from, to).reverse());
      }
    };
    for (let i = 0; i < 5000; i++) {
      const e = [rnd(400), `k${i}`] as const;
      idx.insert(e);
      ref.push(e);
    }
    check();
    for (let i = 0; i < 3000; i++) {
      const at = rnd(ref.length);
      expect(idx.delete(ref[at]!)).toBe(true);
      ref.splice(at, 1);
    }
    expect(idx.delete([1000, 'none'])).toBe(false);
    check();
    idx.load([...ref].reverse());
    check();
    for (const e of [...ref]) idx.delete(e);
    ref.length = 0;
    check();
    expect(idx.at(0)).toBeUndefined();
  });
});
