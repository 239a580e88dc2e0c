import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { MemoryReadCollection } from '../../libs/readstore/src/memory-read-store';
import type { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import { instancesProjection, type InstanceDoc } from '../../projections/instances/instances.projection';
import { instanceSpec } from '../../test/support/fixtures';
import { instanceOperations } from '../instance-operations/instance-operations';
import { closureJobId, ProjectClosure } from './project-closure';

/** The closure against a real (embedded) event store, the real instance decider and the instances read model's own evolve. */
describe('ProjectClosure (TerminateResourcesOnProjectClosed)', () => {
  let store: SqlEventStore;
  const at = '2026-01-01T00:00:00.000Z';
  const instances = new MemoryReadCollection<InstanceDoc>('instances');

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  /** Appends to a stream and folds what it appended into the instances model, as its projector would. */
  async function record(stream: string, type: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}): Promise<RecordedEvent> {
    await store.append(stream, [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1, ...metadata } }], { expectedRevision: 'any' });
    const events = await store.readStream(stream);
    const last = events[events.length - 1];
    const id = instancesProjection.documentId(last);
    if (id) {
      const doc = instancesProjection.evolve(await instances.get(id), last);
      await instances.write([doc ? { kind: 'put', doc } : { kind: 'delete', id }]);
    }
    return last;
  }

  async function activeInstance(projectId: string, terminated = false): Promise<string> {
    const id = randomUUID();
    const s = `instance-${id}`;
    await record(s, 'compute.InstanceRequested.v1', { ...instanceSpec({ projectId }), instanceId: id, jobId: `j-${id}`, requestedAt: at });
    await record(s, 'compute.InstanceProvisioningStarted.v1', { instanceId: id, jobId: `j-${id}`, at });
    await record(s, 'compute.InstanceProvisioned.v1', { instanceId: id, jobId: `j-${id}`, operation: 'create', externalId: `sim-${id}`, hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at });
    if (terminated) {
      await record(s, 'compute.InstanceActionRequested.v1', { instanceId: id, jobId: `t-${id}`, jobType: 'instance.action', action: 'terminate', from: 'active', to: 'terminating', requestedAt: at, requestedBy: 'u' });
      await record(s, 'compute.InstanceTerminated.v1', { instanceId: id, jobId: `t-${id}`, at });
    }
    return id;
  }

  const closure = () =>
    new ProjectClosure({
      events: store,
      projections: { projections: [instancesProjection], collection: async () => instances } as unknown as ProjectionEngine,
      waitForProjections: async () => true,
      resources: [instanceOperations],
      now: () => at,
      logger: pino({ level: 'silent' }),
    });
  const terminations = async (id: string) => (await store.readStream(`instance-${id}`)).filter((e) => e.type === 'compute.InstanceActionRequested.v1' && (e.data as { action: string }).action === 'terminate');

  it("requests the termination of each of the project's live instances once, however often the close is handed to it", async () => {
    const [a, b] = [await activeInstance('p1'), await activeInstance('p1')];
    const gone = await activeInstance('p1', true);
    const otherProject = await activeInstance('p2');
    await record('project-p1', 'identity.ProjectCreated.v1', { projectId: 'p1', name: 'p1', createdAt: at });
    const closed = await record('project-p1', 'identity.ProjectClosed.v1', { projectId: 'p1', reason: 'asked', closedAt: at });

    const saga = closure();
    expect(await saga.handle([closed])).toBe(true);
    expect(await closure().handle([closed])).toBe(true); // a replay after a crash, by a fresh process
    for (const id of [a, b]) {
      const requested = await terminations(id);
      expect(requested).toHaveLength(1);
      expect(requested[0].data).toMatchObject({ jobId: closureJobId('p1', 'instance', id), requestedBy: 'system:project-closure' });
      expect(requested[0].metadata).toMatchObject({ projectId: 'p1', actor: 'system:project-closure', causationId: closed.id });
    }
    expect(await terminations(gone)).toHaveLength(1); // its own, from before the close
    expect(await terminations(otherProject)).toEqual([]);
  });

  it('sweeps a closed project again when one of its jobs completes, and ignores other projects\' jobs', async () => {
    await record('project-p3', 'identity.ProjectCreated.v1', { projectId: 'p3', name: 'p3', createdAt: at });
    await record('project-p3', 'identity.ProjectClosed.v1', { projectId: 'p3', reason: 'asked', closedAt: at });
    await record('project-p4', 'identity.ProjectCreated.v1', { projectId: 'p4', name: 'p4', createdAt: at });
    // created after the close's sweep (it was still creating then), its create job now completes
    const late = await activeInstance('p3');
    const open = await activeInstance('p4');
    const done = (projectId: string) => record(`job-${randomUUID()}`, 'jobs.JobCompleted.v1', { jobId: 'j', attempt: 1, completedAt: at, result: {} }, { projectId });
    const saga = closure();
    expect(await saga.handle([await done('p4')])).toBe(false);
    expect(await saga.handle([await done('p3')])).toBe(true);
    expect(await terminations(late)).toHaveLength(1);
    expect(await terminations(open)).toEqual([]);
  });
});
