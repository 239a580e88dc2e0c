import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { consoleSessionDecider, consoleSessionStream } from '../../libs/domain/consoles/console-session';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import { ManualClock } from '../../libs/runtime/src/clock';
import { ReadStoreCheckpointStore } from '../../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import { consoleSessionsProjection } from '../../projections/console-sessions/console-sessions.projection';
import { eventually } from '../../test/support/wait';
import { closingReason, ConsoleSessionCloser, ConsoleSessionExpiry } from './console-sessions';

/**
 * CloseConsolesOnResourceStopped and the expiry timer over a real embedded event store and the
 * console sessions read model projected as in the application; time is a clock the test moves.
 */
describe('console sessions process (DECISIONS 23)', () => {
  let store: SqlEventStore;
  let projections: ProjectionEngine;
  const clock = new ManualClock();
  const logger = pino({ level: 'silent' });
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const reads = new MemoryReadStore();
    projections = new ProjectionEngine(store, reads, new ReadStoreCheckpointStore(reads), [consoleSessionsProjection]);
    await projections.start();
  });
  afterAll(async () => {
    await projections?.stop();
    await store?.close();
  });

  const sessions = () => projections.collection(consoleSessionsProjection);
  /** The sessions model has folded everything in the log. */
  const caughtUp = async () => expect(await projections.runner(consoleSessionsProjection.name).waitFor(await store.headPosition(), 20_000)).toBe(true);
  const ports = () => ({ events: store, clock });

  async function openSession(resourceId: string, ttlMs = 15 * 60_000): Promise<string> {
    const sessionId = randomUUID();
    const now = clock.now();
    const r = await handleCommand(
      store,
      consoleSessionStream(sessionId),
      consoleSessionDecider,
      { type: 'OpenConsoleSession', sessionId, projectId: 'p1', resourceType: 'instance', resourceId, resourceStatus: 'active', tokenHash: 'h', expiresAt: iso(now + ttlMs), now: iso(now), openedBy: 'key:k1' },
      { metadata: { projectId: 'p1', actor: 'key:k1' } },
    );
    expect(r.position).not.toBeNull();
    await caughtUp();
    return sessionId;
  }

  async function record(stream: string, type: string, data: Record<string, unknown>): Promise<RecordedEvent> {
    await store.append(stream, [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1, projectId: 'p1' } }], { expectedRevision: 'any' });
    const events = await store.readStream(stream);
    return events[events.length - 1];
  }

  const statusOf = async (id: string) => {
    const doc = await (await sessions()).get(id);
    return doc && { status: doc.status, reason: doc.closeReason };
  };

  it('knows which compute events end a console: stops and terminations requested, done or observed', () => {
    const e = (type: string, data: Record<string, unknown> = {}) => ({ type, data });
    expect(closingReason(e('compute.InstanceActionRequested.v1', { to: 'stopping' }))).toBe('resource-stopped');
    expect(closingReason(e('compute.InstanceActionRequested.v1', { to: 'terminating' }))).toBe('resource-terminated');
    expect(closingReason(e('compute.InstanceActionRequested.v1', { to: 'provisioning' }))).toBeNull();
    expect(closingReason(e('compute.InstanceStatusSynced.v1', { to: 'stopped' }))).toBe('resource-stopped');
    expect(closingReason(e('compute.InstanceStatusSynced.v1', { to: 'active' }))).toBeNull();
    expect(closingReason(e('compute.ServerPowerActionRequested.v1', { to: 'stopping' }))).toBe('resource-stopped');
    expect(closingReason(e('compute.ServerPowerActionRequested.v1', { to: 'restarted' }))).toBeNull();
    expect(closingReason(e('compute.ServerDeletionRequested.v1'))).toBe('resource-terminated');
    expect(closingReason(e('compute.InstanceStarted.v1'))).toBeNull();
  });

  it("closes a stopped resource's open sessions, not another resource's, and closes nothing twice on a replay", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const [s1, s2, other] = [await openSession(a), await openSession(a), await openSession(b)];
    const closer = new ConsoleSessionCloser(ports(), sessions, logger);
    const stopped = await record(`instance-${a}`, 'compute.InstanceStopped.v1', { instanceId: a, jobId: 'j1', at: iso(clock.now()) });
    expect(await closer.handle([stopped])).toBe(true);
    const closed = await store.readAll({ fromPosition: 0, maxCount: 10000 });
    const closes = closed.filter((e) => e.type === 'consoles.ConsoleSessionClosed.v1');
    expect(closes.map((e) => [e.streamId, (e.data as { reason: string }).reason, e.metadata.causationId]).sort()).toEqual(
      [
        [consoleSessionStream(s1), 'resource-stopped', stopped.id],
        [consoleSessionStream(s2), 'resource-stopped', stopped.id],
      ].sort(),
    );
    await caughtUp();
    expect(await statusOf(s1)).toEqual({ status: 'closed', reason: 'resource-stopped' });
    expect(await statusOf(other)).toEqual({ status: 'open', reason: null });
    // A replay of the batch (after a crash) finds nothing open and writes nothing.
    expect(await closer.handle([stopped])).toBe(false);
    expect((await store.readAll({ fromPosition: 0, maxCount: 10000 })).length).toBe(closed.length);
  });

  it('closes sessions at their expiry, and only those due', async () => {
    const due = await openSession(randomUUID(), 60_000);
    const later = await openSession(randomUUID(), 10 * 60_000);
    const timer = new ConsoleSessionExpiry(ports(), sessions, logger, 60_000, clock);
    timer.start();
    try {
      clock.advance(61_000);
      await eventually(async () => (await store.readStream(consoleSessionStream(due))).length, (n) => n === 2, 10_000);
      await caughtUp();
      expect(await statusOf(due)).toEqual({ status: 'closed', reason: 'expired' });
      // More polls at this time leave the session that is not yet due open.
      const ticks = timer.ticks;
      clock.advance(1000);
      await eventually(async () => timer.ticks, (t) => t > ticks, 10_000);
      expect(await statusOf(later)).toEqual({ status: 'open', reason: null });
      expect(await store.readStream(consoleSessionStream(later))).toHaveLength(1);
    } finally {
      await timer.stop();
    }
  });
});
