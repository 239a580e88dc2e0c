import { randomUUID } from 'node:crypto';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { PgliteSqlClient } from '../../eventstore/src/sql/sql-client';
import type { EventStore, RecordedEvent } from '../../eventstore/src/event-store.port';
import { EventTail, type TailEntry } from '../src/event-tail';
import { eventually } from '../../../test/support/wait';

/** The event streams' shared tail (DECISIONS 20) over a real (embedded) event store. */
describe('EventTail', () => {
  let client: PgliteSqlClient;
  let store: EventStore;
  const calls = { subscribeToAll: 0, readAll: 0 };

  beforeAll(async () => {
    client = await PgliteSqlClient.open();
    store = await SqlEventStore.open(client, { schema: 'es_tail' });
    // Counts what the tail asks of the store (the real store answers).
    const subscribe = store.subscribeToAll.bind(store);
    const readAll = store.readAll.bind(store);
    store.subscribeToAll = (o) => (calls.subscribeToAll++, subscribe(o));
    store.readAll = (o) => (calls.readAll++, readAll(o));
  });
  afterAll(async () => {
    await store?.close();
  });

  const append = async (n: number) => {
    for (let i = 0; i < n; i++) await store.append(`thing-${randomUUID()}`, [{ id: randomUUID(), type: 'compute.ThingHappened.v1', data: { i }, metadata: { schemaVersion: 1 } }], { expectedRevision: 'no_stream' });
  };
  const collector = () => {
    const got: number[] = [];
    const reached: number[] = [];
    const ahead: string[] = [];
    const onEvents = (entries: readonly TailEntry<string>[], at: number) => {
      got.push(...entries.map((e) => e.event.position));
      // Everything up to `at` has been handed: the follower has seen every event below it.
      if (at > (got[got.length - 1] ?? 0) && entries.length > 0) ahead.push(`reached ${at} ahead of handed ${got[got.length - 1]}`);
      reached.push(at);
    };
    return { got, reached, ahead, follower: { onEvents } };
  };
  const positionsBetween = (after: number, upTo: number) => Array.from({ length: upTo - after }, (_, i) => after + i + 1);

  it('hands 50 followers every new event once, in order, from one subscription and no read per follower', async () => {
    await append(5);
    const derived: string[] = [];
    const tail = new EventTail(store, (e: RecordedEvent) => (derived.push(e.id), e.id));
    const head = await store.headPosition();
    const followers = Array.from({ length: 50 }, collector);
    const before = { ...calls };
    for (const f of followers) await tail.follow(head, f.follower);
    await append(120);
    const end = await store.headPosition();
    await eventually(async () => followers.every((f) => f.got.length === 120), Boolean);
    for (const f of followers) expect(f.got).toEqual(positionsBetween(head, end));
    expect(calls.subscribeToAll - before.subscribeToAll).toBe(1);
    // The one subscription's own reads (at most one per append here), none per follower: 50 readers each reading would be thousands.
    expect(calls.readAll - before.readAll).toBeLessThanOrEqual(121);
    // Each event derived once for all 50.
    expect(derived).toHaveLength(120);
    expect(tail.size).toBe(50);
    await tail.close();
  });

  it('a follower far behind catches up by pages while events keep coming, then joins: nothing lost, nothing twice', async () => {
    const start = await store.headPosition();
    await append(40);
    const tail = new EventTail(store, (e) => e.id, { bufferSize: 10, catchUpPage: 7 });
    const first = collector();
    await tail.follow(await store.headPosition(), first.follower);
    const late = collector();
    const writing = append(60);
    await tail.follow(start, late.follower);
    await writing;
    const end = await store.headPosition();
    await eventually(async () => late.got[late.got.length - 1] === end, Boolean);
    expect(late.got).toEqual(positionsBetween(start, end));
    expect(late.ahead).toEqual([]);
    // The position it is told it has reached never runs ahead of what it was handed.
    // The position it is told it has reached is never past what it was handed (a catch-up page claims its own end only).
    expect(late.reached.every((r, i) => i === 0 || r >= late.reached[i - 1]!)).toBe(true);
    expect(late.reached[late.reached.length - 1]).toBe(end);
    await tail.close();
  });

  it("tells a follower the position it has reached although none of the events matched (a quiet filter's keep-alive)", async () => {
    const tail = new EventTail(store, (e) => e.id);
    const f = collector();
    const at = await store.headPosition();
    await tail.follow(at, f.follower);
    await append(3);
    await eventually(async () => f.reached[f.reached.length - 1] === at + 3, Boolean);
    await tail.close();
  });
});

describe('EventTail over a store that has not heard of the newest commits', () => {
  it('a follower attaching below the head the tail starts from is handed everything in between (a client resuming while events are written)', async () => {
    const client = await PgliteSqlClient.open();
    // Two processes on one log: `writer` appends; `reader` serves the tail and hears no NOTIFY (one
    // lost, or simply not arrived yet), and would not poll again within the test (pollIntervalMs).
    const writer = await SqlEventStore.open(client, { schema: 'es_tail_lag' });
    const deaf = { kind: client.kind, query: client.query.bind(client), transaction: client.transaction.bind(client), scripted: client.scripted.bind(client), listen: async () => async () => undefined, close: async () => undefined };
    const reader = await SqlEventStore.open(deaf, { schema: 'es_tail_lag', pollIntervalMs: 600_000 });
    const append = (n: number) => Promise.all(Array.from({ length: n }, () => writer.append(`thing-${randomUUID()}`, [{ id: randomUUID(), type: 'compute.ThingHappened.v1', data: {}, metadata: { schemaVersion: 1 } }], { expectedRevision: 'no_stream' })));
    await append(3);
    // The reader reads to the end: its tail is verified "caught up" at 3.
    expect((await reader.readAll({ fromPosition: 0, maxCount: 100 })).map((e) => e.position)).toEqual([1, 2, 3]);
    await append(5);
    // The store: a head it has shown is one its reads reach.
    expect(await reader.headPosition()).toBe(8);
    expect((await reader.readAll({ fromPosition: 3, maxCount: 100 })).map((e) => e.position)).toEqual([4, 5, 6, 7, 8]);
    await append(4);
    // The tail starts at the head (12) and catches the follower up from 3 by reads of the store.
    const tail = new EventTail(reader, (e) => e.id);
    const got: number[] = [];
    const reached: number[] = [];
    await tail.follow(3, { onEvents: (entries, at) => (got.push(...entries.map((e) => e.event.position)), reached.push(at)) });
    expect(got).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(Math.max(...reached)).toBe(12);
    await tail.close();
    await reader.close();
    await writer.close();
  });
});
