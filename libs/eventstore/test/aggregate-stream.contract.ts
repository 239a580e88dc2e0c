import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../../domain/shared/domain-error';
import { aggregateStream, type StreamFold } from '../src/aggregate-stream';
import type { EventStore } from '../src/event-store.port';
import { ev, type EventStoreFixture } from './event-store.contract';

type Added = DomainEvent<'test.Added.v1', { n: number }>;
type Removed = DomainEvent<'test.Removed.v1', { n: number }>;

/** A decider as the domain writes them: its evolve takes the domain event only. */
const tally: Decider<never, Added | Removed, { ns: number[] }> = {
  initialState: () => ({ ns: [] }),
  evolve: (s, e) => (e.type === 'test.Added.v1' ? { ns: [...s.ns, e.data.n] } : { ns: s.ns.filter((n) => n !== e.data.n) }),
  decide: () => [],
};

/** A fold that reads where each event was recorded (typed: no cast). */
const where: StreamFold<Added | Removed, { at: [number, number, string | undefined][] }> = {
  initialState: () => ({ at: [] }),
  evolve: (s, e) => ({ at: [...s.at, [e.revision, e.position, e.metadata.requestId]] }),
};

/** The same instant written in another offset (`minutes` east of UTC), e.g. `2026-01-01T01:00:00.000+01:00`. */
function inOffset(iso: string, minutes: number): string {
  const local = new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, -1);
  const m = Math.abs(minutes);
  return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** Appends to a stream of its own until the store's clock has moved past `recordedAt` (the store's clock, not this process's). */
async function pastRecorded(store: EventStore, recordedAt: string): Promise<void> {
  const clock = `clock-${randomUUID()}`;
  for (let i = 0; i < 1000; i++) {
    await store.append(clock, [ev('test.Tick.v1')], { expectedRevision: 'any' });
    const [tick] = (await store.readStream(clock)).slice(-1);
    if (Date.parse(tick.recordedAt) > Date.parse(recordedAt)) return;
  }
  throw new Error(`the store's clock did not move past ${recordedAt}`);
}

/** aggregateStream over a real store: run by every adapter's spec with its fixture. */
export function testAggregateStream(name: string, makeFixture: () => Promise<EventStoreFixture>) {
  describe(`aggregateStream: ${name}`, () => {
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

    const added = (n: number) => ev('test.Added.v1', { n });

    it('continues from a state already folded: reads only the events after its revision', async () => {
      const id = `agg-${randomUUID()}`;
      await store.append(id, [added(1), added(2)], { expectedRevision: 'no_stream' });
      const first = await aggregateStream(store, id, tally);
      await store.append(id, [added(3)], { expectedRevision: 1 });
      const asked: Array<number | undefined> = [];
      const counting = { ...store, readStream: (s: string, o?: { fromRevision?: number }) => (asked.push(o?.fromRevision), store.readStream(s, o)) } as EventStore;
      // A state that is not the stream's fold shows that only the newer events are folded onto it.
      const next = await aggregateStream(counting, id, tally, { from: { ...first, state: { ns: [9] } } });
      expect(asked).toEqual([2]);
      expect(next).toMatchObject({ state: { ns: [9, 3] }, revision: 2 });
    });

    it('folds an empty stream to the initial state, at no_stream', async () => {
      expect(await aggregateStream(store, `agg-${randomUUID()}`, tally)).toEqual({ state: { ns: [] }, revision: 'no_stream', position: null });
    });

    it("folds the stream's events in order with the decider, answering the last one's revision and position", async () => {
      const s = `agg-${randomUUID()}`;
      await store.append(s, [added(1), added(2)], { expectedRevision: 'no_stream' });
      const last = await store.append(s, [ev('test.Removed.v1', { n: 1 }), added(3)], { expectedRevision: 1 });
      expect(await aggregateStream(store, s, tally)).toEqual({ state: { ns: [2, 3] }, revision: 3, position: last.position });
      // The evolve is handed the recorded event.
      const recorded = await store.readStream(s);
      expect((await aggregateStream(store, s, where)).state.at).toEqual(recorded.map((e) => [e.revision, e.position, 'test']));
    });

    it('folds only the events at or before upToPosition', async () => {
      const s = `agg-${randomUUID()}`;
      const first = await store.append(s, [added(1), added(2)], { expectedRevision: 'no_stream' });
      const between = await store.append(`other-${randomUUID()}`, [added(99)], { expectedRevision: 'no_stream' });
      const last = await store.append(s, [added(3)], { expectedRevision: 1 });
      expect(await aggregateStream(store, s, tally, { upToPosition: first.position })).toEqual({ state: { ns: [1, 2] }, revision: 1, position: first.position });
      expect(await aggregateStream(store, s, tally, { upToPosition: between.position })).toEqual({ state: { ns: [1, 2] }, revision: 1, position: first.position });
      const [one] = await store.readStream(s);
      expect(await aggregateStream(store, s, tally, { upToPosition: one.position })).toEqual({ state: { ns: [1] }, revision: 0, position: one.position });
      expect(await aggregateStream(store, s, tally, { upToPosition: last.position })).toEqual({ state: { ns: [1, 2, 3] }, revision: 2, position: last.position });
      expect(await aggregateStream(store, s, tally, { upToPosition: 0 })).toEqual({ state: { ns: [] }, revision: 'no_stream', position: null });
    });

    it('folds only the events recorded at or before `until`, comparing instants whatever their offset', async () => {
      const s = `agg-${randomUUID()}`;
      await store.append(s, [added(1)], { expectedRevision: 'no_stream' });
      await pastRecorded(store, (await store.readStream(s))[0].recordedAt);
      await store.append(s, [added(2)], { expectedRevision: 0 });
      await pastRecorded(store, (await store.readStream(s))[1].recordedAt);
      await store.append(s, [added(3)], { expectedRevision: 1 });
      const [a, b, c] = await store.readStream(s);
      expect(Date.parse(a.recordedAt)).toBeLessThan(Date.parse(b.recordedAt));
      expect(Date.parse(b.recordedAt)).toBeLessThan(Date.parse(c.recordedAt));
      const ns = async (until: string | Date) => (await aggregateStream(store, s, tally, { until })).state.ns;

      expect(await ns(a.recordedAt)).toEqual([1]);
      expect(await ns(b.recordedAt)).toEqual([1, 2]);
      expect(await ns(c.recordedAt)).toEqual([1, 2, 3]);
      expect(await ns(new Date(Date.parse(b.recordedAt) - 1))).toEqual([1]);
      // b's instant written an hour east and five hours west of UTC: as text the first sorts after c, the second before a.
      expect(inOffset('2026-01-01T00:00:00.000Z', 60)).toBe('2026-01-01T01:00:00.000+01:00');
      expect(await ns(inOffset(b.recordedAt, 60))).toEqual([1, 2]);
      expect(await ns(inOffset(b.recordedAt, -300))).toEqual([1, 2]);
      expect(await ns('2000-01-01T01:00:00+01:00')).toEqual([]);
      expect(await aggregateStream(store, s, tally, { until: inOffset(b.recordedAt, 60) })).toEqual({ state: { ns: [1, 2] }, revision: 1, position: b.position });
      expect(await aggregateStream(store, s, tally, { until: '2000-01-01T01:00:00+01:00' })).toEqual({ state: { ns: [] }, revision: 'no_stream', position: null });
      // Both bounds: the earlier one stops the fold.
      expect(await aggregateStream(store, s, tally, { until: c.recordedAt, upToPosition: a.position })).toEqual({ state: { ns: [1] }, revision: 0, position: a.position });
    });

    it('refuses an `until` that is not an instant', async () => {
      await expect(aggregateStream(store, `agg-${randomUUID()}`, tally, { until: 'yesterday' })).rejects.toMatchObject({ name: 'DomainError', code: 'BAD_REQUEST' });
    });
  });
}
