/**
 * An ordered set of index entries with positions (order statistics), for the in-memory read store:
 * sorted chunks of at most CHUNK entries plus a Fenwick tree over the chunk lengths.
 *  - insert / delete: O(log n + CHUNK) (a binary search, then a splice inside one chunk);
 *  - the position of a bound (`lowerBound`) and the entry at a position (`at`): O(log n);
 *  - walking from a position: O(1) per entry.
 * So a range's size is two lowerBounds, and a page starting at `skip` costs O(log n + page).
 * A chunk split or an emptied chunk rebuilds the Fenwick tree: O(n / CHUNK), once per CHUNK/2 inserts at most.
 */
export type Entry = readonly unknown[];

const CHUNK = 512;

export class OrderedIndex<E extends Entry = Entry> {
  private chunks: E[][] = [];
  /** Fenwick tree (1-based) over chunk lengths. */
  private tree: number[] = [0];
  private count = 0;

  constructor(private readonly cmp: (a: E, b: E) => number) {}

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.chunks = [];
    this.rebuild();
  }

  /** Replaces the content with `entries` (any order). */
  load(entries: E[]): void {
    const sorted = [...entries].sort(this.cmp);
    this.chunks = [];
    for (let i = 0; i < sorted.length; i += CHUNK) this.chunks.push(sorted.slice(i, i + CHUNK));
    this.rebuild();
  }

  insert(e: E): void {
    if (this.chunks.length === 0) {
      this.chunks.push([e]);
      this.rebuild();
      return;
    }
    let ci = this.chunkFor((x) => this.cmp(x, e) < 0);
    if (ci === this.chunks.length) ci--;
    const chunk = this.chunks[ci]!;
    chunk.splice(upperBound(chunk, e, this.cmp), 0, e);
    if (chunk.length > 2 * CHUNK) {
      this.chunks.splice(ci, 1, chunk.slice(0, CHUNK), chunk.slice(CHUNK));
      this.rebuild();
    } else this.add(ci, 1);
  }

  /** Removes the entry comparing equal to `e`; false when there is none. */
  delete(e: E): boolean {
    const ci = this.chunkFor((x) => this.cmp(x, e) < 0);
    if (ci === this.chunks.length) return false;
    const chunk = this.chunks[ci]!;
    const i = firstNotBelow(chunk, (x) => this.cmp(x, e) < 0);
    if (i === chunk.length || this.cmp(chunk[i]!, e) !== 0) return false;
    chunk.splice(i, 1);
    if (chunk.length === 0) {
      this.chunks.splice(ci, 1);
      this.rebuild();
    } else this.add(ci, -1);
    return true;
  }

  /**
   * The position of the first entry for which `below` is false. `below` must hold for a prefix of
   * the order and fail for the rest (e.g. "entry < bound").
   */
  lowerBound(below: (e: E) => boolean): number {
    const ci = this.chunkFor(below);
    if (ci === this.chunks.length) return this.count;
    return this.prefix(ci) + firstNotBelow(this.chunks[ci]!, below);
  }

  /** The entry at `pos` (0-based), or undefined outside [0, size). */
  at(pos: number): E | undefined {
    if (pos < 0 || pos >= this.count) return undefined;
    const [ci, off] = this.locate(pos);
    return this.chunks[ci]![off];
  }

  /** Entries at positions [from, to), in order, or from to-1 down to from when `reverse`. */
  *walk(from: number, to: number, reverse = false): Generator<E> {
    from = Math.max(0, from);
    to = Math.min(this.count, to);
    if (from >= to) return;
    if (!reverse) {
      let [ci, off] = this.locate(from);
      for (let n = to - from; n > 0; n--) {
        let chunk = this.chunks[ci]!;
        if (off === chunk.length) {
          chunk = this.chunks[++ci]!;
          off = 0;
        }
        yield chunk[off++]!;
      }
    } else {
      let [ci, off] = this.locate(to - 1);
      for (let n = to - from; n > 0; n--) {
        if (off < 0) {
          off = this.chunks[--ci]!.length - 1;
        }
        yield this.chunks[ci]![off--]!;
      }
    }
  }

  /** The first chunk whose last entry is not `below` (chunks.length when every entry is). */
  private chunkFor(below: (e: E) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.chunks[mid]!;
      if (below(c[c.length - 1]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private rebuild(): void {
    const n = this.chunks.length;
    const tree = new Array<number>(n + 1).fill(0);
    let count = 0;
    for (let i = 1; i <= n; i++) {
      const len = this.chunks[i - 1]!.length;
      count += len;
      tree[i]! += len;
      const parent = i + (i & -i);
      if (parent <= n) tree[parent]! += tree[i]!;
    }
    this.tree = tree;
    this.count = count;
  }

  private add(ci: number, delta: number): void {
    this.count += delta;
    for (let i = ci + 1; i < this.tree.length; i += i & -i) this.tree[i]! += delta;
  }

  /** Total length of chunks [0, ci). */
  private prefix(ci: number): number {
    let s = 0;
    for (let i = ci; i > 0; i -= i & -i) s += this.tree[i]!;
    return s;
  }

  /** [chunk, offset] of position `pos` (0 <= pos < size). */
  private locate(pos: number): [number, number] {
    let idx = 0;
    let rest = pos;
    let step = 1;
    while (step * 2 < this.tree.length) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = idx + step;
      if (next < this.tree.length && this.tree[next]! <= rest) {
        idx = next;
        rest -= this.tree[next]!;
      }
    }
    return [idx, rest];
  }
}

function firstNotBelow<E>(arr: E[], below: (e: E) => boolean): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(arr[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound<E>(arr: E[], e: E, cmp: (a: E, b: E) => number): number {
  return firstNotBelow(arr, (x) => cmp(x, e) <= 0);
}
