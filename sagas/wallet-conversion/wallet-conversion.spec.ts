import { walletStream } from '../../libs/domain/billing/events';
import { planConversion, walletDecider } from '../../libs/domain/billing/wallet.decider';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { walletConversion } from './wallet-conversion';

/** The conversion's second half against a real (embedded) event store, as after a crash between the two. */
describe('wallet conversion process manager', () => {
  let store: SqlEventStore;
  const at = '2026-01-01T00:00:00.000Z';
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('credits the target wallet from the recorded debit, once however often the debit is handed to it', async () => {
    const ctx = { metadata: { projectId: 'p1', actor: 'u' } };
    await handleCommand(store, walletStream('p1', 'USD'), walletDecider, { type: 'CreditWallet', projectId: 'p1', currency: 'USD', amountCents: 1000, creditId: 'c1', source: 'top-up', reference: 'r1', description: null, conversion: null, now: at }, ctx);
    const conversion = planConversion('cv1', 'USD', 'NGN', 333, '1234.5678');
    // the process crashed right after this append: nothing has credited NGN yet
    await handleCommand(store, walletStream('p1', 'USD'), walletDecider, { type: 'DebitWallet', projectId: 'p1', currency: 'USD', amountCents: 333, debitId: 'd1', source: 'conversion', reference: 'cv1', description: null, conversion, now: at }, ctx);
    expect(await store.readStream(walletStream('p1', 'NGN'))).toEqual([]);

    const log = await store.readAll({ fromPosition: 0, maxCount: 100 });
    const pm = walletConversion(store);
    expect(await pm.handle(log)).toBe(true);
    expect(await pm.handle(log)).toBe(false); // a replay of the same batch (the checkpoint was not saved)
    const credits = await store.readStream(walletStream('p1', 'NGN'));
    expect(credits).toHaveLength(1);
    expect(credits[0].data).toMatchObject({ amountCents: 411111, source: 'conversion', reference: 'cv1', conversion: { rate: '1234.5678', fromAmountCents: 333 } });
    expect(credits[0].metadata.causationId).toBe(log[1].id);
  });

  it('never overdraws on the expected revision alone (as between processes, where the in-process turns do not apply)', async () => {
    const ctx = { metadata: { projectId: 'p2', actor: 'u' } };
    const stream = walletStream('p2', 'NGN');
    await handleCommand(store, stream, walletDecider, { type: 'CreditWallet', projectId: 'p2', currency: 'NGN', amountCents: 1000, creditId: 'c', source: 'top-up', reference: 'r', description: null, conversion: null, now: at }, ctx);
    const debit = (i: number) => ({ type: 'DebitWallet' as const, projectId: 'p2', currency: 'NGN' as const, amountCents: 100, debitId: `d${i}`, source: 'debit' as const, reference: `ref-${i}`, description: null, conversion: null, now: at });
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => handleCommand(store, stream, walletDecider, debit(i), ctx, { attempts: 200 })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused).toHaveLength(40);
    for (const r of refused) expect(r.reason.code).toBe('INSUFFICIENT_FUNDS');
    const events = await store.readStream(stream);
    expect(events.reduce((sum, e) => sum + (e.type === 'billing.WalletCredited.v1' ? 1 : -1) * (e.data.amountCents as number), 0)).toBe(0);
  });
});
