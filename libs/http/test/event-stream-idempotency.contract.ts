/**
 * The contract of EventStreamIdempotencyStore, run on any event store adapter: on PGlite by
 * event-stream-idempotency.spec.ts (every run), on EventStoreDB by `npm run test:esdb`
 * (event-stream-idempotency.contract-esdb.ts), the store it is for.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '../../eventstore/src/event-store.port';
import { handleCommand } from '../../eventstore/src/handle-command';
import { CredentialCipher } from '../../providers/src/credential-cipher';
import { EventStreamIdempotencyStore } from '../src/event-stream-idempotency-store';
import { eventually } from '../../../test/support/wait';

export function testEventStreamIdempotency(name: string, open: () => Promise<EventStore>) {
  describe(`EventStreamIdempotencyStore on ${name}: the record lives in the log`, () => {
    let events: EventStore;
    const stores: EventStreamIdempotencyStore[] = [];
    const cipher = new CredentialCipher(randomBytes(32));
    const fp = 'e'.repeat(64);
    const scope = `project:${randomUUID()}`;
    const projectId = scope.slice('project:'.length);
    /** One process's store (`start`: it renews its leases while it lives; a store never started is a process that died). */
    const store = (options: { leaseMs?: number; start?: boolean } = {}) => {
      const s = new EventStreamIdempotencyStore(events, { leaseMs: options.leaseMs ?? 300, seal: cipher });
      if (options.start !== false) s.start();
      stores.push(s);
      return s;
    };
    beforeAll(async () => {
      events = await open();
    });
    afterAll(async () => {
      for (const s of stores) s.stop();
      await events?.close();
    });

    it('one of two processes takes a key; the answer replays (sealed in the log); another body is told apart; release frees the key', async () => {
      const key = randomUUID();
      // Leases long enough that a loaded machine cannot let the winner's lapse between the two reads (CI failed on 300 ms).
      const [a, b] = await Promise.all([store({ leaseMs: 30_000 }).begin(scope, key, fp, 60_000), store({ leaseMs: 30_000 }).begin(scope, key, fp, 60_000)]);
      expect([a.state, b.state].sort()).toEqual(['acquired', 'in-progress']);
      const winner = a.state === 'acquired' ? a : b;
      if (winner.state !== 'acquired') throw new Error('unreachable');
      const body = '{"data":{"attributes":{"key":"svc_live_streamsecret"}}}';
      expect(await store().complete(scope, key, 'not-the-token', fp, { status: 201, body }, 60_000)).toBe(false);
      expect(await stores[0].complete(scope, key, winner.token, fp, { status: 201, body, contentType: 'application/json' }, 60_000)).toBe(true);
      const replay = await store().begin(scope, key, fp, 60_000);
      expect(replay).toMatchObject({ state: 'completed', fingerprint: fp, response: { status: 201, body, contentType: 'application/json' } });
      expect(replay.state === 'completed' && replay.ttlMs).toBeGreaterThan(50_000);
      expect(await store().begin(scope, key, 'd'.repeat(64), 60_000)).toMatchObject({ state: 'completed', fingerprint: fp }); // 422 by the pipeline
      const log = await events.readStream(EventStreamIdempotencyStore.streamOf(scope, key));
      expect(JSON.stringify(log)).not.toContain('streamsecret');

      const other = randomUUID();
      const taken = await store().begin(scope, other, fp, 60_000);
      if (taken.state !== 'acquired') throw new Error('not acquired');
      await stores[stores.length - 1].release(scope, other, taken.token);
      expect((await store().begin(scope, other, fp, 60_000)).state).toBe('acquired');
    });

    it('a reservation whose process died before writing lapses with its lease; a live process keeps its key', async () => {
      const key = randomUUID();
      expect((await store({ leaseMs: 200, start: false }).begin(scope, key, fp, 60_000)).state).toBe('acquired');
      const next = await eventually(() => store().begin(scope, key, fp, 60_000), (r) => r.state !== 'in-progress', 10_000, 50);
      expect(next.state).toBe('acquired'); // nothing was written under the key: taken over
      // That second process is alive and renews: after several lease periods the key is still its own.
      const live = EventStreamIdempotencyStore.streamOf(scope, key);
      await eventually(() => events.readStream(live), (log) => log.filter((e) => e.type === 'idempotency.LeaseRenewed.v1').length >= 3, 10_000, 50);
      expect((await store().begin(scope, key, fp, 60_000)).state).toBe('in-progress');
    });

    it('a process that died after its write (never answered): the retry is told what was written, not run again; the rebuilt answer is stored once', async () => {
      const key = randomUUID();
      const crashed = store({ leaseMs: 200, start: false });
      const begun = await crashed.begin(scope, key, fp, 60_000);
      if (begun.state !== 'acquired') throw new Error('not acquired');
      // The request's write: its events carry the key, the project and the request (as handleCommand's callers put them).
      const decider = { initialState: () => 0, evolve: (s: number) => s + 1, decide: () => [{ type: 'w.Created', data: {} }, { type: 'w.Named', data: {} }] };
      const stream = `widget-${randomUUID()}`;
      const r = await handleCommand(events, stream, decider as never, {}, { metadata: { projectId, requestId: 'req-1', idempotencyKey: key } });
      // Saga work that followed it (a causation) and another project's write with the same key are not it.
      await handleCommand(events, `job-${randomUUID()}`, decider as never, {}, { metadata: { projectId, requestId: 'req-1', idempotencyKey: key, causationId: 'e1' } });
      await handleCommand(events, `widget-${randomUUID()}`, decider as never, {}, { metadata: { projectId: randomUUID(), requestId: 'req-9', idempotencyKey: key } });
      // ... and the process dies. While its lease runs the key is in progress, then the retry learns of the write.
      const retry = await eventually(() => store().begin(scope, key, fp, 60_000), (x) => x.state !== 'in-progress', 10_000, 50);
      expect(retry).toEqual({ state: 'committed', fingerprint: fp, write: { scope, key, requestId: 'req-1', streamId: stream, position: r.position } });
      expect(await store().begin(scope, key, fp, 60_000)).toEqual(retry); // recorded: the log is read once
      const rebuilt = { status: 202, body: '{"data":{"id":"w1"},"jobId":"j1"}', contentType: 'application/json; charset=utf-8' };
      expect(await store().recovered(scope, key, rebuilt)).toEqual(rebuilt);
      expect(await store().recovered(scope, key, { status: 200, body: '{}' })).toEqual(rebuilt); // a racing retry replays the first
      expect(await store().begin(scope, key, fp, 60_000)).toMatchObject({ state: 'completed', response: rebuilt });
    });

    it('a 5xx after the write keeps the key: release never frees a key that wrote', async () => {
      const key = randomUUID();
      const s = store();
      const begun = await s.begin(scope, key, fp, 60_000);
      if (begun.state !== 'acquired') throw new Error('not acquired');
      const decider = { initialState: () => 0, evolve: (x: number) => x + 1, decide: () => [{ type: 'w.Created', data: {} }] };
      const stream = `widget-${randomUUID()}`;
      await handleCommand(events, stream, decider as never, {}, { metadata: { projectId, requestId: 'req-2', idempotencyKey: key } });
      await s.release(scope, key, begun.token);
      expect(await store().begin(scope, key, fp, 60_000)).toMatchObject({ state: 'committed', write: { streamId: stream, requestId: 'req-2' } });
    });
  });
}
