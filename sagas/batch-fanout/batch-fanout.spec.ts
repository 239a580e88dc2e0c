import { randomUUID } from 'node:crypto';
import { batchDecider } from '../../libs/domain/batches/batch.decider';
import { batchStream, type BatchAction, type BatchResourceType } from '../../libs/domain/batches/events';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { MemoryReadStore } from '../../libs/readstore/src/memory-read-store';
import { systemClock } from '../../libs/runtime/src/clock';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { instanceSpec } from '../../test/support/fixtures';
import { JOB_BACKED_RESOURCES } from '../job-operations/job-backed-resources';
import { BatchFanout, batchItemJobId, instanceBatchRequester, serverBatchRequester, type BatchItemRequester } from './batch-fanout';

const JOBS = Object.values(JOB_BACKED_RESOURCES);

/** The fan-out against a real (embedded, in-memory) event store and the real resource requesters. */
describe('BatchFanout (RequestItemsOnBatchRequested)', () => {
  let store: SqlEventStore;
  const at = '2026-01-01T00:00:00.000Z';

  /** What the instance requester uses: the store, the clock and the (here empty) volumes read model. */
  let ports: PortsOf<'events' | 'projections' | 'clock'>;

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
    const reads = new MemoryReadStore();
    ports = { events: store, clock: systemClock, projections: { collection: async (p) => reads.collection(p.name), liveRunner: () => undefined } };
  });
  afterAll(async () => {
    await store?.close();
  });

  const append = (stream: string, type: string, data: Record<string, unknown>) =>
    store.append(stream, [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1 } }], { expectedRevision: 'any' });

  /** An instance of `projectId` as its history records it: created, then (optionally) stopped. */
  async function instance(projectId: string, stopped = false): Promise<string> {
    const id = randomUUID();
    const s = `instance-${id}`;
    await append(s, 'compute.InstanceRequested.v1', { ...instanceSpec({ projectId }), instanceId: id, jobId: 'j-create', requestedAt: at });
    await append(s, 'compute.InstanceProvisioningStarted.v1', { instanceId: id, jobId: 'j-create', at });
    await append(s, 'compute.InstanceProvisioned.v1', { instanceId: id, jobId: 'j-create', operation: 'create', externalId: `sim-${id}`, hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22, at });
    if (stopped) {
      await append(s, 'compute.InstanceActionRequested.v1', { instanceId: id, jobId: 'j-stop', jobType: 'instance.action', action: 'stop', from: 'active', to: 'stopping', requestedAt: at, requestedBy: 'u' });
      await append(s, 'compute.InstanceStopped.v1', { instanceId: id, jobId: 'j-stop', at });
    }
    return id;
  }

  /** Requests a batch and returns the events a subscription would hand the fan-out. */
  async function requestBatch(action: BatchAction, resourceType: BatchResourceType, resourceIds: string[], projectId = 'p1'): Promise<{ batchId: string; batch: RecordedEvent[] }> {
    const batchId = randomUUID();
    const from = await store.headPosition();
    await handleCommand(store, batchStream(batchId), batchDecider, { type: 'RequestBatch', batchId, projectId, action, resourceType, resourceIds, now: at }, { metadata: { projectId, actor: 'user-1', correlationId: `corr-${batchId}` } });
    return { batchId, batch: await store.readAll({ fromPosition: from, maxCount: 100 }) };
  }

  const items = async (batchId: string) => (await store.readStream(batchStream(batchId))).slice(1).map((e) => [e.type, e.data.resourceId, e.data.jobId ?? e.data.code]);
  const requested = async (instanceId: string) => (await store.readStream(`instance-${instanceId}`)).filter((e) => e.type === 'compute.InstanceActionRequested.v1' && e.data.jobId !== 'j-stop');

  it('requests each resource under a job id derived from the batch, and records what was refused', async () => {
    const [mine, theirs, stopped] = [await instance('p1'), await instance('p2'), await instance('p1', true)];
    const { batchId, batch } = await requestBatch('stop', 'instances', [mine, theirs, stopped, 'missing']);
    const fanout = new BatchFanout(store, { instances: instanceBatchRequester(ports, JOBS) });

    expect(await fanout.handle(batch)).toBe(true);

    const jobId = batchItemJobId(batchId, mine);
    expect(await items(batchId)).toEqual([
      ['compute.BatchItemDispatched.v1', mine, jobId],
      ['compute.BatchItemRejected.v1', theirs, 'NOT_FOUND'], // another project's instance is a missing one
      ['compute.BatchItemRejected.v1', stopped, 'INVALID_STATE'],
      ['compute.BatchItemRejected.v1', 'missing', 'NOT_FOUND'],
    ]);
    const [stop] = await requested(mine);
    expect(stop.data).toMatchObject({ instanceId: mine, jobId, action: 'stop', from: 'active', requestedBy: `system:batch:${batchId}` });
    expect(stop.metadata).toMatchObject({ projectId: 'p1', actor: `system:batch:${batchId}`, correlationId: `corr-${batchId}`, causationId: batch[0].id });
    // The item's job commits with its request (one append), without waiting for the dispatcher.
    expect(await store.readStream(`job-${jobId}`)).toEqual([expect.objectContaining({ type: 'jobs.JobEnqueued.v1', position: stop.position + 1, data: expect.objectContaining({ resourceId: mine, operation: 'stop' }) })]);
    expect(await requested(theirs)).toEqual([]);
    expect(await requested(stopped)).toEqual([]);
  });

  it('maps batch actions to instance actions (reboot restarts, delete terminates through the delete job)', async () => {
    const [a, b] = [await instance('p1'), await instance('p1')];
    const fanout = new BatchFanout(store, { instances: instanceBatchRequester(ports, JOBS) });
    await fanout.handle((await requestBatch('reboot', 'instances', [a])).batch);
    await fanout.handle((await requestBatch('delete', 'instances', [b])).batch);

    expect((await requested(a)).map((e) => e.data)).toEqual([expect.objectContaining({ action: 'restart', jobType: 'instance.action' })]);
    expect((await requested(b)).map((e) => e.data)).toEqual([expect.objectContaining({ action: 'terminate', jobType: 'instance.delete' })]);
  });

  it('requests server power actions and deletions', async () => {
    const serverId = randomUUID();
    const s = `server-${serverId}`;
    const spec = {
      projectId: 'p1', providerId: null, providerKind: 'provider_baremetal', name: 'db', hostname: 'db.example.com', label: 'db', role: 'BareMetal', site: 'NYC', region: 'NYC',
      plan: { slug: 'c3-medium-x86', name: 'c3.medium.x86' }, operatingSystem: { slug: 'debian_12', name: 'Debian 12' }, billing: 'hourly', sshKeys: [], userData: null, tags: [], workerCount: 1, spot: false, accelerators: null,
    };
    await append(s, 'compute.ServerRequested.v1', { ...spec, serverId, jobId: 'j-create', requestedAt: at, restoredFromBackup: null });
    await append(s, 'compute.ServerInstallStarted.v1', { serverId, jobId: 'j-create', at });
    await append(s, 'compute.ServerActivated.v1', { serverId, jobId: 'j-create', at, operation: 'create', externalId: 'x1', ipv4: '10.0.0.1' });
    const fanout = new BatchFanout(store, { servers: serverBatchRequester(store, JOBS) });

    const { batchId, batch } = await requestBatch('delete', 'servers', [serverId]);
    await fanout.handle(batch);

    const jobId = batchItemJobId(batchId, serverId);
    expect(await items(batchId)).toEqual([['compute.BatchItemDispatched.v1', serverId, jobId]]);
    const history = await store.readStream(s);
    const last = history[history.length - 1];
    expect(last).toMatchObject({ type: 'compute.ServerDeletionRequested.v1', data: { serverId, jobId, from: 'active' } });
    expect(await store.readStream(`job-${jobId}`)).toEqual([expect.objectContaining({ type: 'jobs.JobEnqueued.v1', position: last.position + 1, data: expect.objectContaining({ resourceType: 'server', resourceId: serverId }) })]);
  });

  it('rejects every item of a resource type it has no requester for', async () => {
    const { batchId, batch } = await requestBatch('stop', 'servers', ['s1', 's2']);

    await new BatchFanout(store, { instances: instanceBatchRequester(ports, JOBS) }).handle(batch);

    expect(await items(batchId)).toEqual([
      ['compute.BatchItemRejected.v1', 's1', 'UNSUPPORTED_PROVIDER'],
      ['compute.BatchItemRejected.v1', 's2', 'UNSUPPORTED_PROVIDER'],
    ]);
  });

  it('neither loses nor repeats an item when the fan-out is handed the batch again', async () => {
    const [a, b] = [await instance('p1'), await instance('p1')];
    const { batchId, batch } = await requestBatch('stop', 'instances', [a, b]);
    const real = instanceBatchRequester(ports, JOBS);
    let storeDown = true;
    // The second request hits an infrastructure failure (not a refusal): the batch is left for a retry.
    const flaky: BatchItemRequester = async (item, ctx) => {
      if (storeDown && item.resourceId === b) throw new Error('connection reset');
      return real(item, ctx);
    };
    const fanout = new BatchFanout(store, { instances: flaky });

    await expect(fanout.handle(batch)).rejects.toThrow('connection reset');
    expect(await items(batchId)).toEqual([['compute.BatchItemDispatched.v1', a, batchItemJobId(batchId, a)]]);

    storeDown = false;
    await fanout.handle(batch);
    await fanout.handle(batch);

    expect(await items(batchId)).toEqual([
      ['compute.BatchItemDispatched.v1', a, batchItemJobId(batchId, a)],
      ['compute.BatchItemDispatched.v1', b, batchItemJobId(batchId, b)],
    ]);
    expect(await requested(a)).toHaveLength(1);
    expect(await requested(b)).toHaveLength(1);
  });

  it('ignores every other event, and says so (its checkpoint may wait)', async () => {
    const id = await instance('p1');
    const events = await store.readStream(`instance-${id}`);
    const head = await store.headPosition();

    expect(await new BatchFanout(store, { instances: instanceBatchRequester(ports, JOBS) }).handle(events)).toBe(false);

    expect(await store.headPosition()).toBe(head);
  });
});
