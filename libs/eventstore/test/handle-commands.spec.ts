/**
 * One decision over several streams (handleCommands, issue 25): its parts commit in one append, a
 * part may follow from what the parts before it decided, and a lost race on any part re-decides all.
 */
import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { handleCommands, type CommandContext } from '../src/handle-command';
import { SqlEventStore } from '../src/sql/sql-event-store';

type Added = DomainEvent<'test.Added.v1', { n: number }>;
const counter: Decider<{ type: 'Add'; n: number }, Added, { total: number }> = {
  initialState: () => ({ total: 0 }),
  decide: (c) => (c.n === 0 ? [] : [{ type: 'test.Added.v1', data: { n: c.n } }]),
  evolve: (s, e) => ({ total: s.total + e.data.n }),
};
const ctx: CommandContext = { metadata: { projectId: 'p1', actor: 'apikey:k1', requestId: 'r1' } };

describe('handleCommands', () => {
  let store: SqlEventStore;
  let appends: number;
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const appendMany = store.appendMany.bind(store);
    store.appendMany = (...args) => (appends++, appendMany(...args));
  });
  beforeEach(() => (appends = 0));
  afterAll(() => store.close());

  it('commits every part in one append, at consecutive positions, the following part seeing what the first decided', async () => {
    const results = await handleCommands(
      store,
      [{ streamId: 'a-1', decider: counter, command: { type: 'Add', n: 2 }, newStream: true }, (earlier) => ({ streamId: 'b-1', decider: counter, command: { type: 'Add', n: earlier.length * 10 }, newStream: true })],
      ctx,
    );
    expect(appends).toBe(1);
    expect(results.map((r) => r.state)).toEqual([{ total: 2 }, { total: 10 }]);
    expect(results[1].position).toBe(results[0].position! + 1);
    expect((await store.readStream('b-1')).map((e) => e.data.n)).toEqual([10]);
  });

  it('leaves out a following part that answers null, and a part that decides nothing', async () => {
    const results = await handleCommands(store, [{ streamId: 'a-2', decider: counter, command: { type: 'Add', n: 1 } }, () => null, { streamId: 'b-2', decider: counter, command: { type: 'Add', n: 0 } }], ctx);
    expect(results.map((r) => r.position === null)).toEqual([false, true]);
    expect(await store.readStream('b-2')).toEqual([]);
  });

  it('re-reads and decides again when a guessed part lost its race: nothing of the first try is written', async () => {
    await handleCommands(store, [{ streamId: 'b-3', decider: counter, command: { type: 'Add', n: 7 } }], ctx);
    const results = await handleCommands(
      store,
      [
        { streamId: 'a-3', decider: counter, command: { type: 'Add', n: 1 }, newStream: true },
        { streamId: 'b-3', decider: counter, command: { type: 'Add', n: 1 }, newStream: true },
      ],
      ctx,
    );
    expect(appends).toBe(3); // one above, the refused guess, the write
    expect(results.map((r) => r.state)).toEqual([{ total: 1 }, { total: 8 }]);
    expect((await store.readStream('a-3')).map((e) => e.data.n)).toEqual([1]);
    expect((await store.readStream('b-3')).map((e) => e.data.n)).toEqual([7, 1]);
  });
});
