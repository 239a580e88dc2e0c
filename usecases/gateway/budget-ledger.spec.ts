/**
 * The budget ledger's group commit (issue 23): concurrent calls of one key are decided together on
 * one append per round, the cap is never passed, also by two ledgers (two processes) on one store.
 */
import type { ReserveSpend, SettleSpend } from '../../libs/domain/gateway/budget.decider';
import type { CommandContext } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { BudgetLedger } from './budget-ledger';

const ctx: CommandContext = { metadata: { projectId: 'p1', actor: 'gwkey:k1', requestId: 'r', mode: 'live' } };
const base = { keyId: 'k1', projectId: 'p1', month: '2026-11', now: '2026-11-27T00:00:00.000Z' };
const reserve = (id: string, amountMicros: number, capMicros: number | null): ReserveSpend => ({ type: 'ReserveSpend', ...base, reservationId: id, amountMicros, capMicros });
const settle = (id: string, actualMicros: number): SettleSpend => ({ type: 'SettleSpend', ...base, reservationId: id, actualMicros });

describe('BudgetLedger', () => {
  let store: SqlEventStore;
  let appends: number;
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const appendMany = store.appendMany.bind(store);
    store.appendMany = (...args) => (appends++, appendMany(...args));
  });
  beforeEach(() => (appends = 0));
  afterAll(() => store.close());

  it('decides 20 concurrent reservations in a couple of appends, admitting exactly what the cap has room for', async () => {
    const ledger = new BudgetLedger(store);
    const answers = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => ledger.decide('gwbudget-a', reserve(`r${i}`, 10, 100), ctx)));
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(10);
    expect(answers.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason.code)).toEqual(Array(10).fill('INSUFFICIENT_FUNDS'));
    // The first call's append, then every one that waited for it in a second: never one append per call.
    expect(appends).toBeLessThanOrEqual(2);
    const events = await store.readStream('gwbudget-a');
    expect(events.map((e) => e.data.reservationId)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}`));
  });

  it('never passes the cap with two ledgers on one stream (two processes), and settles free their room', async () => {
    const [one, two] = [new BudgetLedger(store), new BudgetLedger(store)];
    const answers = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).decide('gwbudget-b', reserve(`r${i}`, 10, 100), ctx)));
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(10);
    const admitted = answers.flatMap((a, i) => (a.status === 'fulfilled' ? [i] : []));
    await Promise.all(admitted.slice(0, 3).map((i) => (i % 2 ? one : two).decide('gwbudget-b', settle(`r${i}`, 0), ctx)));
    const after = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? two : one).decide('gwbudget-b', reserve(`s${i}`, 10, 100), ctx)));
    expect(after.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
  });

  it('records an uncapped call\'s reservation with its settlement in one append', async () => {
    const ledger = new BudgetLedger(store);
    const state = await ledger.decide('gwbudget-c', [reserve('u1', 50, null), settle('u1', 7)], ctx);
    expect(appends).toBe(1);
    expect(state).toEqual({ spentMicros: 7, heldMicros: 0, open: {} });
    expect((await store.readStream('gwbudget-c')).map((e) => e.type)).toEqual(['gateway.SpendReserved.v1', 'gateway.SpendSettled.v1']);
  });
});
