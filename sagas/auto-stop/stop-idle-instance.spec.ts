import { randomUUID } from 'node:crypto';
import { instanceStream } from '../../libs/domain/compute/instance.events';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import type { Clock } from '../../libs/runtime/src/clock';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { foldDocument } from '../../libs/subscriptions/src/document-projection';
import { instancesProjection, type InstanceDoc } from '../../projections/instances/instances.projection';
import { instanceSpec } from '../../test/support/fixtures';
import { JOB_BACKED_RESOURCES } from '../job-operations/job-backed-resources';
import { stopIdleInstance } from './stop-idle-instance';

const JOBS = Object.values(JOB_BACKED_RESOURCES);

/** The auto-stop timer's stop, against a real (embedded) event store. */
describe('stopIdleInstance', () => {
  let store: SqlEventStore;
  let ports: PortsOf<'events' | 'projections' | 'clock'>;
  const at = '2026-01-01T00:00:00.000Z';
  const clock: Clock = { now: () => Date.parse('2026-01-01T01:00:00.000Z'), onAdvance: () => () => undefined };

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const reads = new MemoryReadStore();
    ports = { events: store, clock, projections: { collection: async (p) => reads.collection(p.name), liveRunner: () => undefined } };
  });
  afterAll(async () => {
    await store?.close();
  });

  const append = (id: string, type: string, data: Record<string, unknown>) => store.append(instanceStream(id), [{ id: randomUUID(), type, data: { instanceId: id, ...data }, metadata: { schemaVersion: 1, projectId: 'p1' } }], { expectedRevision: 'any' });
  /** An active instance (optionally stopped since), and its document as the timer's poll finds it. */
  async function instance(stoppedSince = false): Promise<InstanceDoc> {
    const id = randomUUID();
    await append(id, 'compute.InstanceRequested.v1', { ...instanceSpec({ autoStopMinutes: 60 }), jobId: 'j-create', requestedAt: at });
    await append(id, 'compute.InstanceProvisioned.v1', { jobId: 'j-create', operation: 'create', externalId: `sim-${id}`, hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at });
    const doc = foldDocument(instancesProjection, await store.readStream(instanceStream(id)), id)!;
    if (stoppedSince) {
      await append(id, 'compute.InstanceActionRequested.v1', { jobId: 'j-stop', jobType: 'instance.action', action: 'stop', from: 'active', to: 'stopping', requestedAt: at, requestedBy: 'u' });
      await append(id, 'compute.InstanceStopped.v1', { jobId: 'j-stop', at });
    }
    return doc;
  }
  const stops = async (id: string) => (await store.readStream(instanceStream(id))).filter((e) => e.type === 'compute.InstanceActionRequested.v1' && e.data.requestedBy === 'system:auto-stop');

  it('requests an ordinary stop by the system, at the clock\'s time, under a job of its own', async () => {
    const doc = await instance();
    await stopIdleInstance(ports, JOBS)(doc);
    const [stop] = await stops(doc.id);
    expect(stop.data).toMatchObject({ instanceId: doc.id, action: 'stop', jobType: 'instance.action', from: 'active', to: 'stopping', requestedBy: 'system:auto-stop', requestedAt: '2026-01-01T01:00:00.000Z', jobId: expect.any(String) });
    expect(stop.data.jobId).not.toBe('j-create');
    expect(stop.metadata).toMatchObject({ projectId: 'p1', actor: 'system:auto-stop' });
    // The stop's job commits with it (one append), without waiting for the dispatcher.
    const [enqueued] = await store.readStream(`job-${stop.data.jobId}`);
    expect(enqueued).toMatchObject({ type: 'jobs.JobEnqueued.v1', position: stop.position + 1, data: { resourceId: doc.id, resourceType: 'instance', operation: 'stop' } });
  });

  it('leaves alone an instance that moved on since the poll read it (a stale read model)', async () => {
    const doc = await instance(true);
    const head = await store.headPosition();
    await expect(stopIdleInstance(ports, JOBS)(doc)).resolves.toBeUndefined();
    expect(await store.headPosition()).toBe(head);
  });

  it('lets any other failure through, so that the timer retries on its next tick', async () => {
    const doc = await instance();
    await expect(stopIdleInstance(ports, JOBS)({ ...doc, projectId: 'p2' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await stops(doc.id)).toEqual([]);
  });
});
