import { walletStream } from '../../domain/billing/events';
import { walletDecider, type WalletCommand } from '../../domain/billing/wallet.decider';
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
  /** Counts appends, to show that queued commands share them. */
  const counting = () => {
    const counter = { appends: 0, store: undefined as unknown as EventStore };
    counter.store = { readStream: store.readStream.bind(store), append: (...a: Parameters<EventStore['append']>) => (counter.appends++, store.append(...a)) } as unknown as EventStore;
    return counter;
  };

  it('answers each queued command as if alone (its refusal, its position, the state after it) from fewer appends', async () => {
    const writer = new CoalescingWriter(walletDecider, { attempts: 50, maxBatch: 256 });
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
    const [a, b] = [new CoalescingWriter(walletDecider, { attempts: 100, maxBatch: 256 }), new CoalescingWriter(walletDecider, { attempts: 100, maxBatch: 256 })];
    const stream = walletStream('p2', 'USD');
    await a.write(store, stream, credit('p2', 1000, 'top'), { metadata: {} });
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).write(store, stream, debit('p2', i), { metadata: {} })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    const events = await store.readStream(stream);
    expect(events.reduce((sum, e) => sum + (e.type === 'billing.WalletCredited.v1' ? 1 : -1) * (e.data.amountCents as number), 0)).toBe(0);
  });
});
