import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { numberSequenceDecider, sixDigits } from '../../domain/shared/number-sequence';
import { aggregateStream, decodeState, encodeState, type FoldSource } from '../src/aggregate-stream';
import { assignNumber } from '../src/assign-number';
import type { EventStore } from '../src/event-store.port';
import { ev, type EventStoreFixture } from './event-store.contract';

type Added = DomainEvent<'test.Added.v1', { n: number }>;

/** A fold whose state holds a Map and a Set, as wallet states do. */
const plain: Decider<never, Added, { sum: number; seen: Map<string, number>; odd: Set<number> }> = {
  initialState: () => ({ sum: 0, seen: new Map(), odd: new Set() }),
  evolve: (s, e) => ({ sum: s.sum + e.data.n, seen: new Map(s.seen).set(`n${e.data.n}`, e.data.n), odd: e.data.n % 2 ? new Set(s.odd).add(e.data.n) : s.odd }),
  decide: () => [],
};
const kept = (version = 1, every = 100) => ({ ...plain, snapshot: { name: 'test-sum', version, every } });

/** The store, counting the events its streams hand out. */
function counting(store: EventStore): FoldSource & { read: number } {
  const counter = {
    read: 0,
    readStream: async (...a: Parameters<EventStore['readStream']>) => {
      const events = await store.readStream(...a);
      counter.read += events.length;
      return events;
    },
    readSnapshot: store.readSnapshot?.bind(store),
    writeSnapshot: store.writeSnapshot?.bind(store),
  };
  return counter;
}

/** Snapshots of long-lived streams, for stores that keep them (the SQL store): run by each adapter's spec. */
export function testSnapshots(name: string, makeFixture: () => Promise<EventStoreFixture>) {
  describe(`snapshots: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    beforeAll(async () => {
      fixture = await makeFixture();
      store = await fixture.open();
    });
    afterAll(async () => {
      await store.close();
      await fixture.cleanup();
    });

    const fill = async (stream: string, from: number, to: number) => {
      const events = [];
      for (let n = from; n <= to; n++) events.push(ev('test.Added.v1', { n }));
      await store.append(stream, events, { expectedRevision: 'any' });
    };

    it('a fold reads only the events after the newest snapshot, also from a store opened afresh, and equals the whole fold', async () => {
      const stream = `snap-${randomUUID()}`;
      await fill(stream, 1, 250);
      const first = counting(store);
      const whole = await aggregateStream(first, stream, kept());
      expect(first.read).toBe(250);
      expect(whole).toEqual(await aggregateStream(store, stream, plain));

      // As after a restart: another store on the same log, its memory tail empty.
      const fresh = await fixture.open();
      try {
        const again = counting(fresh);
        expect(await aggregateStream(again, stream, kept())).toEqual(whole);
        expect(again.read).toBe(0);
        await fill(stream, 251, 400);
        const grown = counting(fresh);
        const after = await aggregateStream(grown, stream, kept());
        expect(grown.read).toBe(150);
        expect(after).toEqual(await aggregateStream(fresh, stream, plain));
        expect(after.state.sum).toBe((400 * 401) / 2);
        expect(after.state.seen.get('n400')).toBe(400);
        expect(after.state.odd.has(399)).toBe(true);
        const last = counting(fresh);
        await aggregateStream(last, stream, kept());
        expect(last.read).toBe(0);
      } finally {
        await fresh.close();
      }
    });

    it('another version of the fold does not read it; a bound below it folds from the start; an instant ignores it', async () => {
      const stream = `snap-${randomUUID()}`;
      await fill(stream, 1, 120);
      await aggregateStream(store, stream, kept());
      const v2 = counting(store);
      expect((await aggregateStream(v2, stream, kept(2))).state.sum).toBe((120 * 121) / 2);
      expect(v2.read).toBe(120);

      const events = await store.readStream(stream);
      const bounded = counting(store);
      const prefix = await aggregateStream(bounded, stream, kept(), { upToPosition: events[49].position });
      expect(prefix).toEqual(await aggregateStream(store, stream, plain, { upToPosition: events[49].position }));
      expect(prefix.state.sum).toBe((50 * 51) / 2);
      expect(bounded.read).toBe(120);

      const byInstant = await aggregateStream(store, stream, kept(), { until: events[119].recordedAt });
      expect(byInstant.revision).toBe(119);
    });

    it('a number sequence takes its next number without reading its history (handleCommand through the same fold)', async () => {
      const decider = numberSequenceDecider({ eventType: 'test.NumberAssigned.v1', ownerField: 'thingId', format: (n) => `T-${sixDigits(n)}` });
      const stream = `seq-${randomUUID()}`;
      const context = { metadata: { projectId: 'p1' } };
      for (let i = 1; i <= 130; i++) await assignNumber(store, stream, decider, { projectId: 'p1', ownerId: `t${i}`, now: '2026-01-01T00:00:00.000Z' }, context);
      const fresh = await fixture.open();
      try {
        const reads: number[] = [];
        const spy: EventStore = Object.assign(Object.create(fresh) as EventStore, {
          readStream: async (...a: Parameters<EventStore['readStream']>) => {
            const events = await fresh.readStream(...a);
            reads.push(events.length);
            return events;
          },
        });
        const next = await assignNumber(spy, stream, decider, { projectId: 'p1', ownerId: 't131', now: '2026-01-01T00:00:00.000Z' }, context);
        expect(next).toMatchObject({ sequence: 131, number: 'T-000131' });
        expect(Math.max(...reads)).toBeLessThan(100);
      } finally {
        await fresh.close();
      }
    });
  });
}

describe('snapshot state encoding', () => {
  it('keeps Maps, Sets, nested objects and arrays', () => {
    const state = { a: new Map([['k', { s: new Set([1, 2]) }]]), b: [1, 'x', null], c: { d: true } };
    expect(decodeState(encodeState(state))).toEqual(state);
  });
});
