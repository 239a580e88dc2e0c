import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { instanceSpec } from '../../test/support/fixtures';
import { JobDispatcher, MAX_ATTEMPTS } from './job-dispatcher';

/** The dispatcher against a real (embedded, in-memory) event store: resource events in, job streams out. */
describe('JobDispatcher (EnqueueJobOn…Requested)', () => {
  let store: EventStore;
  const at = '2026-01-01T00:00:00.000Z';

  beforeAll(async () => {
    store = await SqlEventStore.pglite();
  });
  afterAll(async () => {
    await store?.close();
  });

  /** Appends resource events and returns them as the subscription would hand them over. */
  async function recorded(streamId: string, events: Array<{ type: string; data: Record<string, unknown> }>, projectId = 'p1', mode?: 'live' | 'test'): Promise<RecordedEvent[]> {
    const from = await store.headPosition();
    await store.append(
      streamId,
      events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata: { schemaVersion: 1, projectId, correlationId: 'corr-1', requestId: 'req-1', ...(mode ? { mode } : {}) } })),
      { expectedRevision: 'any' },
    );
    return store.readAll({ fromPosition: from, maxCount: 100 });
  }
  const jobEvents = (jobId: string) => store.readStream(`job-${jobId}`);

  it('enqueues an instance create job carrying the compact payload, caused by the request', async () => {
    const [instanceId, jobId] = [randomUUID(), randomUUID()];
    const batch = await recorded(`instance-${instanceId}`, [{ type: 'compute.InstanceRequested.v1', data: { ...instanceSpec(), instanceId, jobId, requestedAt: at } }]);

    expect(await new JobDispatcher(store).handle(batch)).toBe(true);

    const job = await jobEvents(jobId);
    expect(job.map((e) => e.type)).toEqual(['jobs.JobEnqueued.v1']);
    expect(job[0].data).toEqual({
      jobId,
      projectId: 'p1',
      type: 'instance.create',
      resourceType: 'instance',
      resourceId: instanceId,
      operation: 'create',
      payload: { name: 'web', plan: 'pc-t3-medium', operatingSystem: 'ubuntu_24_04_x64_lts', region: 'us-east-1', site: 'us-east-1', hostname: 'web.us-east-1', workerCount: 1, sshKeyId: null },
      maxAttempts: MAX_ATTEMPTS,
      enqueuedAt: at,
    });
    expect(job[0].metadata).toMatchObject({ projectId: 'p1', actor: 'system:job-dispatcher', correlationId: 'corr-1', causationId: batch[0].id, requestId: 'req-1', mode: 'live' });
  });

  it('enqueues the job in the mode of the request that caused it (DECISIONS 21)', async () => {
    const [instanceId, jobId] = [randomUUID(), randomUUID()];
    const batch = await recorded(`instance-${instanceId}`, [{ type: 'compute.InstanceRequested.v1', data: { ...instanceSpec(), instanceId, jobId, requestedAt: at } }], 'p1', 'test');
    expect(await new JobDispatcher(store).handle(batch)).toBe(true);
    expect((await jobEvents(jobId))[0].metadata).toMatchObject({ causationId: batch[0].id, mode: 'test' });
  });

  it('enqueues instance action and delete jobs with what was requested', async () => {
    const instanceId = randomUUID();
    const [stopJob, rescueJob, deleteJob] = [randomUUID(), randomUUID(), randomUUID()];
    const action = (jobId: string, jobType: string, act: string, extra: Record<string, unknown> = {}) => ({
      type: 'compute.InstanceActionRequested.v1',
      data: { instanceId, jobId, jobType, action: act, from: 'active', to: 'stopping', requestedAt: at, requestedBy: 'user-1', ...extra },
    });
    const batch = await recorded(`instance-${instanceId}`, [
      action(stopJob, 'instance.action', 'stop'),
      action(rescueJob, 'instance.action', 'rescue', { rescueImage: 'rescue-linux' }),
      action(deleteJob, 'instance.delete', 'terminate'),
    ]);

    await new JobDispatcher(store).handle(batch);

    expect((await jobEvents(stopJob))[0].data).toMatchObject({ type: 'instance.action', resourceType: 'instance', resourceId: instanceId, operation: 'stop', payload: { action: 'stop', from: 'active', requestedBy: 'user-1' }, maxAttempts: 3 });
    expect((await jobEvents(stopJob))[0].data.payload).not.toHaveProperty('rescueImage');
    expect((await jobEvents(rescueJob))[0].data).toMatchObject({ operation: 'rescue', payload: { action: 'rescue', rescueImage: 'rescue-linux' } });
    expect((await jobEvents(deleteJob))[0].data).toMatchObject({ type: 'instance.delete', operation: 'terminate' });
  });

  it('enqueues server create, power, migration and deletion jobs', async () => {
    const serverId = randomUUID();
    const [create, off, migrate, del] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const spec = {
      projectId: 'p1', providerId: null, providerKind: 'provider_baremetal', name: 'db', hostname: 'db.example.com', label: 'db', role: 'BareMetal', site: 'NYC', region: 'NYC',
      plan: { slug: 'c3-medium-x86', name: 'c3.medium.x86' }, operatingSystem: { slug: 'debian_12', name: 'Debian 12' }, billing: 'hourly', sshKeys: ['k1'], userData: '#!/bin/sh secret',
      tags: [], workerCount: 1, spot: false, accelerators: null,
    };
    const batch = await recorded(`server-${serverId}`, [
      { type: 'compute.ServerRequested.v1', data: { ...spec, serverId, jobId: create, requestedAt: at, restoredFromBackup: null } },
      { type: 'compute.ServerPowerActionRequested.v1', data: { serverId, jobId: off, action: 'power_off', from: 'active', to: 'stopping', requestedAt: at, requestedBy: 'u' } },
      { type: 'compute.ServerMigrationRequested.v1', data: { serverId, jobId: migrate, from: 'active', fromPlan: spec.plan, plan: { slug: 'm3-large-x86', name: 'm3.large.x86' }, requestedAt: at, requestedBy: 'u' } },
      { type: 'compute.ServerDeletionRequested.v1', data: { serverId, jobId: del, from: 'active', requestedAt: at, requestedBy: 'u' } },
    ]);

    await new JobDispatcher(store).handle(batch);

    const created = (await jobEvents(create))[0].data;
    expect(created).toMatchObject({ type: 'server.create', resourceType: 'server', resourceId: serverId, operation: 'create', projectId: 'p1' });
    expect(created.payload).toEqual({ plan: 'c3-medium-x86', operatingSystem: 'debian_12', site: 'NYC', region: 'NYC', hostname: 'db.example.com', sshKeys: ['k1'], role: 'BareMetal' });
    expect(JSON.stringify(created)).not.toContain('secret'); // user data stays on the server stream
    expect((await jobEvents(off))[0].data).toMatchObject({ type: 'server.action', operation: 'power_off', payload: { action: 'power_off', from: 'active', requestedBy: 'u' } });
    expect((await jobEvents(migrate))[0].data).toMatchObject({ operation: 'migrate', payload: { action: 'migrate', plan: 'm3-large-x86', fromPlan: 'c3-medium-x86' } });
    expect((await jobEvents(del))[0].data).toMatchObject({ operation: 'delete', payload: { action: 'delete' } });
  });

  it('enqueues each job once when a batch is handed again after a crash', async () => {
    const [instanceId, jobId] = [randomUUID(), randomUUID()];
    const batch = await recorded(`instance-${instanceId}`, [{ type: 'compute.InstanceRequested.v1', data: { ...instanceSpec(), instanceId, jobId, requestedAt: at } }]);
    await new JobDispatcher(store).handle(batch);

    await expect(new JobDispatcher(store).handle(batch)).resolves.toBe(true);

    expect((await jobEvents(jobId)).map((e) => e.type)).toEqual(['jobs.JobEnqueued.v1']);
  });

  it('ignores every other event, and says so (its checkpoint may wait)', async () => {
    const instanceId = randomUUID();
    const batch = await recorded(`instance-${instanceId}`, [
      { type: 'compute.InstanceStopped.v1', data: { instanceId, jobId: 'j-x', at } },
      { type: 'identity.ProjectCreated.v1', data: { projectId: 'p9', name: 'x', createdAt: at } },
    ]);
    const head = await store.headPosition();

    expect(await new JobDispatcher(store).handle(batch)).toBe(false);

    expect(await store.headPosition()).toBe(head);
  });
});
