/**
 * A keyed request run again to answer its committed write (DECISIONS 5, issue 21 §2): it draws the
 * same ids, and each of its appends answers with the events its first run wrote instead of writing.
 */
import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { CoalescingWriter } from '../src/coalescing-writer';
import { earlierWrite, handleCommand, requestScopedId, toNewEvent, type CommandContext } from '../src/handle-command';
import { SqlEventStore } from '../src/sql/sql-event-store';

type Added = DomainEvent<'test.Added.v1', { n: number }>;
const counter: Decider<{ type: 'Add'; n: number }, Added, { total: number }> = {
  initialState: () => ({ total: 0 }),
  decide: (c) => [{ type: 'test.Added.v1', data: { n: c.n } }],
  evolve: (s, e) => ({ total: s.total + e.data.n }),
};

const context = (requestId: string, extra: Partial<CommandContext['metadata']> = {}): CommandContext => ({ metadata: { projectId: 'p1', actor: 'apikey:k1', requestId, idempotencyKey: 'key-1', ...extra } });

describe('a recovering request (handleCommand)', () => {
  let store: SqlEventStore;
  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(() => store.close());

  it('draws the ids its first run drew: from the key, scope and request; any other request a fresh one', () => {
    expect(requestScopedId(context('r1'), 'job')).toBe(requestScopedId(context('r1', { recovering: true }), 'job'));
    expect(requestScopedId(context('r1'), 'job')).not.toBe(requestScopedId(context('r1'), 'resource'));
    expect(requestScopedId(context('r1'), 'job')).not.toBe(requestScopedId(context('r2'), 'job'));
    expect(requestScopedId(context('r1'), 'job')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const unkeyed = { metadata: { projectId: 'p1', requestId: 'r1' } };
    expect(requestScopedId(unkeyed, 'job')).not.toBe(requestScopedId(unkeyed, 'job'));
  });

  it('answers with the events its first run appended, as of the last of them, and appends nothing', async () => {
    const first = await handleCommand(store, 'counter-a', counter, { type: 'Add', n: 2 }, context('r1'), { newStream: true });
    // Another request writes after it.
    await handleCommand(store, 'counter-a', counter, { type: 'Add', n: 5 }, { metadata: { projectId: 'p1', requestId: 'r9' } });
    const again = await handleCommand(store, 'counter-a', counter, { type: 'Add', n: 2 }, context('r1', { recovering: true }), { newStream: true });
    expect(again).toEqual({ state: { total: 2 }, position: first.position, events: [{ type: 'test.Added.v1', data: { n: 2 } }], replayed: true });
    expect((await store.readStream('counter-a')).map((e) => e.data.n)).toEqual([2, 5]);
  });

  it('writes where its first run wrote nothing, and never records that it was recovering', async () => {
    const r = await handleCommand(store, 'counter-b', counter, { type: 'Add', n: 3 }, context('r1', { recovering: true }));
    expect(r.replayed).toBeUndefined();
    const [recorded] = await store.readStream('counter-b');
    expect(recorded.metadata.recovering).toBeUndefined();
    expect(recorded.metadata.requestId).toBe('r1');
    expect(toNewEvent({ type: 'test.Added.v1', data: {} }, context('r1', { recovering: true })).metadata).not.toHaveProperty('recovering');
  });

  it('finds its first run before a call outside (earlierWrite): only when recovering, and only what that request wrote', async () => {
    const first = await handleCommand(store, 'counter-c', counter, { type: 'Add', n: 4 }, context('r1'), { newStream: true });
    expect(await earlierWrite(store, 'counter-c', counter, context('r1'))).toBeNull();
    expect(await earlierWrite(store, 'counter-c', counter, context('r2', { recovering: true }))).toBeNull();
    expect(await earlierWrite(store, 'counter-c', counter, context('r1', { recovering: true }))).toEqual({ state: { total: 4 }, position: first.position, events: [{ type: 'test.Added.v1', data: { n: 4 } }], replayed: true });
  });

  it("is not queued by a hot stream's coalescing writer: it answers its first run's write, appending nothing", async () => {
    const writer = new CoalescingWriter(counter, { attempts: 5, maxBatch: 16 });
    const first = await writer.write(store, 'counter-d', { type: 'Add', n: 6 }, context('r1'));
    await Promise.all([1, 2, 3].map((n) => writer.write(store, 'counter-d', { type: 'Add', n }, { metadata: { projectId: 'p1', requestId: `other-${n}` } })));
    const again = await writer.write(store, 'counter-d', { type: 'Add', n: 6 }, context('r1', { recovering: true }));
    expect(again).toEqual({ state: { total: 6 }, position: first.position, events: [{ type: 'test.Added.v1', data: { n: 6 } }], replayed: true });
    expect((await store.readStream('counter-d')).map((e) => e.data.n).sort()).toEqual([1, 2, 3, 6]);
  });
});
