import { randomUUID } from 'node:crypto';
import { PgSqlClient } from '../../eventstore/src/sql/sql-client';
import { MemoryReadStore } from '../../readstore/src/memory-read-store';
import { ReadStoreCheckpointStore, type CheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { CheckpointWatch, checkpointChannel, SignallingCheckpointStore, sqlSignals } from '../src/checkpoint-signals';
import { requireEngine } from '../../../test/engines';

/**
 * Read-your-writes in a split deployment: a worker saves checkpoints, an API node waits for them.
 * Two PostgreSQL connections (the two processes) and one read store (the shared one).
 */
describe('checkpoint signals (split deployment, PostgreSQL NOTIFY)', () => {
  const url = requireEngine('PG_URL');
  const channel = checkpointChannel(`t_${randomUUID().replace(/-/g, '')}`);
  const workerSql = PgSqlClient.fromUrl(url, 2);
  const apiSql = PgSqlClient.fromUrl(url, 2);
  const reads = new MemoryReadStore();
  /** The API node's reads of the stored checkpoints, counted. */
  let storedReads = 0;
  const stored = new ReadStoreCheckpointStore(reads);
  const counted: CheckpointStore = { load: (s) => (storedReads++, stored.load(s)), save: (s, p) => stored.save(s, p) };
  const worker = new SignallingCheckpointStore(stored, sqlSignals(workerSql), channel);
  let watch: CheckpointWatch;

  beforeAll(async () => {
    watch = await CheckpointWatch.open(sqlSignals(apiSql), channel, counted);
  });
  afterAll(async () => {
    await watch?.close();
    await workerSql.close();
    await apiSql.close();
  });

  it('a wait is woken by the worker saving the checkpoints it needs, without reading them on a timer', async () => {
    await worker.save('projector:a', 10);
    const waiting = watch.waitFor(['projector:a', 'projector:b'], 50, 60_000);
    let settled = false;
    void waiting.then(() => (settled = true));
    await worker.save('projector:a', 60);
    await worker.save('projector:b', 49);
    // A barrier only a signal can pass (nothing stored under it), sent after those two: once it is
    // heard, they were, and the wait must still be open (b is one short).
    const barrier = watch.waitFor(['barrier'], 1, 60_000);
    await sqlSignals(workerSql).publish(channel, JSON.stringify(['barrier', 1]));
    expect(await barrier).toBe(true);
    expect(settled).toBe(false);
    await worker.save('projector:b', 50);
    expect(await waiting).toBe(true);
    // Reads when each wait began (one per name: a, b, barrier), none while they waited.
    expect(storedReads).toBe(3);
  });

  it('a wait for a checkpoint already heard (its signal came before the wait) passes at once, not at its deadline', async () => {
    const heard = watch.waitFor(['saga:heard'], 7, 60_000);
    await worker.save('saga:heard', 7);
    expect(await heard).toBe(true);
    // `saga:heard` is known at 7 now (from the signal or the read); the store holds 7 too, so the next
    // wait's read advances nothing. It must pass at once: before the fix it waited out its deadline,
    // which is far past this test's own timeout, so a hang fails it.
    expect(await watch.waitFor(['saga:heard'], 7, 600_000)).toBe(true);
  });

  it('a checkpoint saved before the wait is read from the store; a wait never passed ends false at its deadline', async () => {
    await worker.save('saga:x', 100);
    const before = storedReads;
    expect(await watch.waitFor(['saga:x'], 100, 60_000)).toBe(true);
    expect(await watch.waitFor(['saga:x'], 101, 200)).toBe(false);
    // One read to start each wait, one more at the deadline of the second.
    expect(storedReads - before).toBe(3);
  });
});
