import { walletStream, type WalletReferenceUsed } from '../../domain/billing/events';
import { referenceStreamOf, walletDecider, walletReferenceUsed, type WalletCommand } from '../../domain/billing/wallet.decider';
import { CoalescingWriter } from './coalescing-writer';
import type { EventStore } from './event-store.port';
import { SqlEventStore } from './sql/sql-event-store';

/** Against a real (embedded) event store, with the wallet decider as the hot stream's rules. */
describe('CoalescingWriter', () => {
  let store: SqlEventStore;
  const at = '2026-01-01T00:00:00.000Z';
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  const credit = (projectId: string, amountCents: number, reference: string): WalletCommand => ({ type: 'CreditWallet', projectId, currency: 'USD', amountCents, creditId: `c-${reference}`, source: 'top-up', reference, description: null, conversion: null, now: at });
  const debit = (projectId: string, i: number): WalletCommand => ({ type: 'DebitWallet', projectId, currency: 'USD', amountCents: 100, debitId: `d-${i}`, source: 'debit', reference: `ref-${i}`, description: null, conversion: null, now: at });
  /** As writeWallet's: a reference moves money once, recorded on its own stream. */
  const wallets = () => new CoalescingWriter(walletDecider, { attempts: 100, maxBatch: 256, once: { streamOf: referenceStreamOf, record: walletReferenceUsed } });
  /** Counts appends, to show that queued commands share them, and the events read from `stream`. */
  const counting = (stream?: string) => {
    const counter = { appends: 0, read: 0, store: undefined as unknown as EventStore };
    counter.store = {
      readStream: async (...a: Parameters<EventStore['readStream']>) => {
        const events = await store.readStream(...a);
        if (a[0] === stream) counter.read += events.length;
        return events;
      },
      readSnapshot: store.readSnapshot.bind(store),
      writeSnapshot: store.writeSnapshot.bind(store),
      append: (...a: Parameters<EventStore['append']>) => (counter.appends++, store.append(...a)),
      appendMany: (...a: Parameters<EventStore['appendMany'] & object>) => (counter.appends++, store.appendMany(...a)),
    } as unknown as EventStore;
    return counter;
  };

  it('answers each queued command as if alone (its refusal, its position, the state after it) from fewer appends', async () => {
    const writer = wallets();
    const c = counting();
    const stream = walletStream('p1', 'USD');
    await writer.write(c.store, stream, credit('p1', 1000, 'top'), { metadata: {} });
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => writer.write(c.store, stream, debit('p1', i), { metadata: {} })));
    const ok = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<Awaited<ReturnType<typeof writer.write>>>).value);
    expect(ok).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(Array(40).fill('INSUFFICIENT_FUNDS'));
    expect(ok.map((r) => r.state.balanceCents)).toEqual([900, 800, 700, 600, 500, 400, 300, 200, 100, 0]);
    const events = await store.readStream(stream);
    expect(ok.map((r) => r.position)).toEqual(events.slice(1).map((e) => e.position));
    expect(c.appends).toBeLessThan(11); // the credit, then the debits in a round or two
    // a repeated reference decides nothing and answers without a position
    const again = await writer.write(c.store, stream, credit('p1', 1000, 'top'), { metadata: {} });
    expect(again.position).toBeNull();
  });

  it('never overdraws between two processes: the expected revision decides, the losing round decides again', async () => {
    const [a, b] = [wallets(), wallets()];
    const stream = walletStream('p2', 'USD');
    await a.write(store, stream, credit('p2', 1000, 'top'), { metadata: {} });
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).write(store, stream, debit('p2', i), { metadata: {} })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    const events = await store.readStream(stream);
    expect(events.reduce((sum, e) => sum + (e.type === 'billing.WalletCredited.v1' ? 1 : -1) * (e.data.amountCents as number), 0)).toBe(0);
  });

  it('moves money once per reference and direction: in one round, between two processes, and a repeat answers as one whatever the balance now', async () => {
    const [a, b] = [wallets(), wallets()];
    const stream = walletStream('p3', 'USD');
    const movementOf = (r: Awaited<ReturnType<typeof a.write>>) => (r.repeatOf?.data as WalletReferenceUsed['data'] | undefined)?.movementId;
    const first = await Promise.all([a.write(store, stream, credit('p3', 500, 'x'), { metadata: {} }), a.write(store, stream, { ...credit('p3', 500, 'x'), creditId: 'c-other' } as WalletCommand, { metadata: {} })]);
    expect(first.map((r) => r.position === null)).toEqual([false, true]);
    expect(movementOf(first[1])).toBe('c-x');
    const raced = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).write(store, stream, { ...debit('p3', 7), debitId: `d-${i}` } as WalletCommand, { metadata: {} })));
    expect(raced.filter((r) => r.position !== null)).toHaveLength(1);
    const winner = raced.find((r) => r.position !== null)!.events[0].data as { debitId: string };
    expect(raced.filter((r) => r.repeatOf).map(movementOf)).toEqual(Array(9).fill(winner.debitId));
    await a.write(store, stream, debit('p3', 8), { metadata: {} });
    await a.write(store, stream, { ...debit('p3', 9), amountCents: 300 } as WalletCommand, { metadata: {} });
    // The balance is 0 now: the same debit again is a repeat, not INSUFFICIENT_FUNDS.
    expect(movementOf(await b.write(store, stream, debit('p3', 7), { metadata: {} }))).toBe(winner.debitId);
    const events = await store.readStream(stream);
    expect(events.map((e) => e.data.amountCents)).toEqual([500, 100, 100, 300]);
  });

  it('a write reads a bounded number of events and keeps a snapshot of the same size however long the wallet grows', async () => {
    const writer = wallets();
    const stream = walletStream('p4', 'USD');
    const grow = (from: number, to: number) => Promise.all(Array.from({ length: to - from }, (_, i) => writer.write(store, stream, credit('p4', 1, `g-${from + i}`), { metadata: {} })));
    const measure = async (reference: string) => {
      const c = counting(stream);
      await writer.write(c.store, stream, credit('p4', 1, reference), { metadata: {} });
      return { read: c.read, snapshot: (await store.readSnapshot(stream, 'wallet@2'))?.state.length ?? 0 };
    };
    await grow(0, 300);
    const short = await measure('m-1');
    await grow(300, 1500);
    const long = await measure('m-2');
    // At most a snapshot interval (100) plus one round's events (256) since the newest snapshot, however long the stream.
    expect(Math.max(short.read, long.read)).toBeLessThan(100 + 256);
    expect(short.snapshot).toBeGreaterThan(0);
    expect(long.snapshot).toBeLessThanOrEqual(short.snapshot + 2); // a few more digits of balance at most
  });
});
