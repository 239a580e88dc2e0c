import type { ReadDoc, ReadStore } from '../libs/readstore/src/read-store.port';

/**
 * Micro-benchmark: writes `n` small documents in batches of 500 (one `write` call per batch) to a
 * fresh collection, then drops it. Only the writes are timed.
 */
export async function benchWrite(store: ReadStore, n: number): Promise<{ docsPerSec: number }> {
  const batchSize = 500;
  const name = `bench_write_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const coll = store.collection<ReadDoc>(name);
  await coll.drop();
  try {
    const started = process.hrtime.bigint();
    for (let from = 0; from < n; from += batchSize) {
      const ops = [];
      for (let i = from; i < Math.min(n, from + batchSize); i++) {
        ops.push({
          kind: 'put' as const,
          doc: { id: `doc-${String(i).padStart(8, '0')}`, _position: i + 1, name: `resource ${i}`, status: i % 3 === 0 ? 'active' : 'pending', size: i % 97, tags: ['bench', `t${i % 10}`] },
        });
      }
      await coll.write(ops);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { docsPerSec: n === 0 ? 0 : Math.round(n / Math.max(seconds, 1e-9)) };
  } finally {
    await coll.drop();
  }
}
