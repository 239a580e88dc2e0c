/**
 * Group "list-seek" (BENCH_ONLY=list-seek): one page deep in a list, reached by skipping the pages
 * before it (`page=N` alone) against seeking past the previous page's last item (the `cursor` of
 * `links.next`, FindQuery.afterId). Page BENCH_SEEK_PAGE (200) of 20 items in a project of
 * BENCH_SEEK_DOCS (10k) documents, with ties on createdAt, sorted -createdAt, with and without the
 * instance lists' residual `status $ne terminated`; the read store alone (no HTTP).
 *  - memory: the embedded read store (its ordered indexes): median of many runs;
 *  - FerretDB (MONGO_URL, BENCH_SEEK_MONGO=1): FerretDB v1 pushes only the equality to PostgreSQL
 *    and filters and sorts the whole match in Go, so both ways are bound by reading and sorting the
 *    project's documents; MongoDB would walk the covering index from the key.
 * Each row also says the documents skipped per read (the store's own count), which is load-independent.
 */
import { randomBytes } from 'node:crypto';
import { MemoryReadStore } from '../libs/readstore/src/memory-read-store';
import { MongoReadStore } from '../libs/readstore/src/mongo-read-store';
import type { Filter, FindQuery, ReadCollection, ReadDoc, ReadStore, SortKey } from '../libs/readstore/src/read-store.port';
import { log, row, type Row } from './lib';

export interface ListSeekOptions {
  docs: number;
  page: number;
  limit: number;
  mongoUrl?: string;
}

type Doc = ReadDoc & { projectId: string; status: string; createdAt: string };

const SORT: SortKey[] = [{ field: 'createdAt', direction: -1 }];

async function fill(store: ReadStore, name: string, n: number): Promise<ReadCollection<Doc>> {
  const c = store.collection<Doc>(name);
  await c.ensureIndexes([
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'createdAt', direction: -1 }, { field: 'id', direction: 1 }] },
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'status', direction: 1 }, { field: 'createdAt', direction: -1 }, { field: 'id', direction: 1 }] },
  ]);
  const docs: Doc[] = Array.from({ length: n }, (_, i) => ({
    id: `i${String((i * 7919) % n).padStart(6, '0')}`,
    _position: i + 1,
    projectId: 'p1',
    status: i % 10 === 0 ? 'terminated' : i % 3 === 0 ? 'stopped' : 'active',
    // 10 instances per second: ties the id orders
    createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 10) * 1000).toISOString(),
  }));
  for (let i = 0; i < docs.length; i += 1000) await c.write(docs.slice(i, i + 1000).map((doc) => ({ kind: 'put' as const, doc, isNew: true })));
  return c;
}

/** Medians of `a` and `b`, run alternately so that a change in the machine's load hits both alike. */
async function medians(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++)
    for (const [k, fn] of [a, b].entries()) {
      const t = performance.now();
      await fn();
      times[k]!.push(performance.now() - t);
    }
  const mid = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [mid(times[0]), mid(times[1])];
}

async function compare(store: ReadStore, label: string, c: ReadCollection<Doc>, opts: ListSeekOptions, runs: number): Promise<Row[]> {
  const rows: Row[] = [];
  const filters: Array<[string, Filter]> = [
    ['projectId', { projectId: 'p1' }],
    ['projectId + status $ne terminated', { projectId: 'p1', status: { $ne: 'terminated' } }],
  ];
  for (const [name, filter] of filters) {
    const skip = (opts.page - 1) * opts.limit;
    const before = await c.find({ filter, sort: SORT, skip: skip - opts.limit, limit: opts.limit });
    const afterId = before.items[before.items.length - 1]!.id;
    const bySkip: FindQuery = { filter, sort: SORT, skip, limit: opts.limit };
    const bySeek: FindQuery = { ...bySkip, afterId };
    const [a, b] = [await c.find(bySkip), await c.find(bySeek)];
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${label} ${name}: the sought page differs from the skipped one`);
    const counted = async (q: FindQuery) => {
      const s0 = store.stats!.skipped;
      await c.find(q);
      return store.stats!.skipped - s0;
    };
    const [skippedBySkip, skippedBySeek] = [await counted(bySkip), await counted(bySeek)];
    const [skipMs, seekMs] = await medians(runs, () => c.find(bySkip), () => c.find(bySeek));
    log(`list-seek ${label} [${name}]: page ${opts.page} by skip ${skipMs.toFixed(3)} ms (${skippedBySkip} skipped), by cursor ${seekMs.toFixed(3)} ms (${skippedBySeek} skipped), total ${a.total}`);
    rows.push(
      row({ item: 'ls1', metric: `page ${opts.page} x${opts.limit} of ${opts.docs / 1000}k, ${label}, [${name}], by cursor (median of ${runs}, alternating)`, unit: 'ms', value: seekMs, baselineName: 'same page by skip', baseline: skipMs, target: null, targetKind: null, lowerIsBetter: true, note: `documents skipped per read: ${skippedBySeek} by cursor, ${skippedBySkip} by skip` }),
    );
  }
  return rows;
}

export async function benchListSeek(opts: ListSeekOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const rows: Row[] = [];
  const memory = new MemoryReadStore();
  rows.push(...(await compare(memory, 'memory', await fill(memory, 'seek', opts.docs), opts, 301)));
  if (opts.mongoUrl) {
    const db = `bench_seek_${randomBytes(4).toString('hex')}`;
    const mongo = await MongoReadStore.connect(opts.mongoUrl, db);
    try {
      rows.push(...(await compare(mongo, mongo.server, await fill(mongo, 'seek', opts.docs), opts, 7)));
    } finally {
      await mongo.dropDatabase().catch(() => undefined);
      await mongo.close();
    }
  }
  return { rows, details: {} };
}
