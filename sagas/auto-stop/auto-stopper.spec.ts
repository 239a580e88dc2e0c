import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { instanceDecider } from '../../libs/domain/compute/instance.decider';
import { instanceStream } from '../../libs/domain/compute/instance.events';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import { ManualClock } from '../../libs/runtime/src/clock';
import { ReadStoreCheckpointStore } from '../../libs/subscriptions/src/checkpoint-store';
import { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import { instancesProjection, type InstanceDoc } from '../../projections/instances/instances.projection';
import { instanceSpec } from '../../test/support/fixtures';
import { eventually } from '../../test/support/wait';
import { AutoStopper } from './auto-stopper';

/**
 * The auto-stop timer over a real (embedded, in-memory) event store and the instances read model
 * that holds its due times, projected as in the application; time is a clock the test moves.
 */
describe('AutoStopper (StopInstanceOnInactivity)', () => {
  let store: SqlEventStore;
  let projections: ProjectionEngine;
  let stopper: AutoStopper | null = null;
  const clock = new ManualClock();
  const isoNow = () => new Date(clock.now()).toISOString();
  /** Polls of the read model so far: a tick that found nothing still counts. */
  let polls = 0;

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const reads = new MemoryReadStore();
    projections = new ProjectionEngine(store, reads, new ReadStoreCheckpointStore(reads), [instancesProjection]);
    await projections.start();
  });
  afterEach(async () => {
    await stopper?.stop();
    stopper = null;
  });
  afterAll(async () => {
    await projections?.stop();
    await store?.close();
  });

  /** The system's stop, as the application requests it. */
  const requestStop = async (doc: InstanceDoc): Promise<void> => {
    await handleCommand(store, instanceStream(doc.id), instanceDecider, { type: 'RequestInstanceAction', jobId: randomUUID(), action: 'stop', now: isoNow(), requestedBy: 'system:auto-stop' }, { metadata: { projectId: doc.projectId, actor: 'system:auto-stop' } });
  };

  function start(stop: (doc: InstanceDoc) => Promise<void> = requestStop): void {
    const collection = () => {
      polls++;
      return projections.collection(instancesProjection);
    };
    stopper = new AutoStopper(collection, stop, pino({ level: 'silent' }), 20, clock);
    stopper.start();
  }

  /** An active instance, provisioned now, that stops itself after `autoStopMinutes` (null: never). */
  async function activeInstance(autoStopMinutes: number | null): Promise<string> {
    const id = randomUUID();
    const append = (type: string, data: Record<string, unknown>) => store.append(instanceStream(id), [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1, projectId: 'p1' } }], { expectedRevision: 'any' });
    await append('compute.InstanceRequested.v1', { ...instanceSpec({ autoStopMinutes }), instanceId: id, jobId: 'j-create', requestedAt: isoNow() });
    await append('compute.InstanceProvisioningStarted.v1', { instanceId: id, jobId: 'j-create', at: isoNow() });
    await append('compute.InstanceProvisioned.v1', { instanceId: id, jobId: 'j-create', operation: 'create', externalId: `sim-${id}`, hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at: isoNow() });
    return id;
  }

  const caughtUp = async () => expect(await projections.runner('instances').waitFor(await store.headPosition(), 20_000)).toBe(true);
  const stopRequests = async (id: string) => (await store.readStream(instanceStream(id))).filter((e) => e.type === 'compute.InstanceActionRequested.v1');
  /** Lets the poller look at the read model a few more times. */
  const morePolls = async (n = 3) => {
    const target = polls + n;
    expect(await eventually(async () => polls, (p) => p >= target)).toBeGreaterThanOrEqual(target);
  };

  it('requests a stop once an armed instance\'s time has come, once, and leaves the others alone', async () => {
    const [hour, twoHours, never] = [await activeInstance(60), await activeInstance(120), await activeInstance(null)];
    await caughtUp();
    start();

    await morePolls();
    for (const id of [hour, twoHours, never]) expect(await stopRequests(id)).toEqual([]); // not due yet

    clock.advance(60 * 60_000);
    const [stop] = await eventually(() => stopRequests(hour), (r) => r.length > 0);
    expect(stop.data).toMatchObject({ instanceId: hour, action: 'stop', from: 'active', requestedBy: 'system:auto-stop' });
    expect(stop.metadata).toMatchObject({ actor: 'system:auto-stop', projectId: 'p1' });

    // The stop disarms the timer: later polls request nothing more.
    await caughtUp();
    await morePolls();
    expect(await stopRequests(hour)).toHaveLength(1);
    expect(await stopRequests(twoHours)).toEqual([]);
    expect(await stopRequests(never)).toEqual([]);
  });

  it('retries a stop that failed on a later poll', async () => {
    const id = await activeInstance(1);
    await caughtUp();
    let failures = 0;
    start(async (doc) => {
      if (failures++ === 0) throw new Error('event store unavailable');
      await requestStop(doc);
    });

    clock.advance(60_000);
    const requests = await eventually(() => stopRequests(id), (r) => r.length > 0);

    expect(requests).toHaveLength(1);
  });
});
