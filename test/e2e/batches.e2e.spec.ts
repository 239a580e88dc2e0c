import { eventually } from '../support/wait';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';



describe.each<Profile>(['embedded', 'server'])('batch actions (%s profile)', (profile) => {
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let ids: string[];

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' });
    api = srv.as(srv.bootstrap.apiKey);
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-batch' })).body.data.id;
    ids = [];
    for (let i = 0; i < 3; i++) {
      const r = await api.post('/v1/instances', { name: `b-${i}`, providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' });
      ids.push(r.body.data.id);
    }
    for (const id of ids) await eventually(() => api.get(`/v1/instances/${id}`), (r) => r.body.data.attributes.status === 'active');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const status = (batchId: string) => api.get(`/v1/batch/batch/status?batchId=${batchId}`);
  // A batch is done when the jobs read model says so; a resource's own read model may follow a moment later.
  const settles = (path: string, want: string) => eventually(() => api.get(path), (r) => r.body.data.attributes.status === want);

  it('fans out one job per resource and reports each outcome, rejecting what cannot be done', async () => {
    const res = await api.post('/v1/batch/batch/action', { action: 'stop', resourceType: 'instances', resourceIds: [ids[0], ids[1], 'missing-id'] });
    expect(res.status).toBe(202);
    expect(res.body.jobId).toBe(res.body.data.id);
    const items = res.body.data.attributes.items;
    expect(items.map((i: { resourceId: string }) => i.resourceId)).toEqual([ids[0], ids[1], 'missing-id']);
    expect(items[2]).toMatchObject({ status: 'rejected', code: 'NOT_FOUND', jobId: null });
    expect(items[0].jobId).toEqual(expect.any(String));
    expect(items[0].jobId).not.toBe(items[1].jobId);

    const done = await eventually(() => status(res.body.data.id), (r) => r.body.data.attributes.inProgress === 0);
    expect(done.body.data.attributes).toMatchObject({ status: 'partially_failed', total: 3, succeeded: 2, failed: 1 });
    for (const id of [ids[0], ids[1]]) expect((await settles(`/v1/instances/${id}`, 'stopped')).body.data.attributes.status).toBe('stopped');
    expect((await api.get(`/v1/instances/${ids[2]}`)).body.data.attributes.status).toBe('active');
    // The jobs model follows the batch's on its own: wait for it rather than assume it has caught up.
    const job = await eventually(() => api.get(`/v1/jobs/${items[0].jobId}`), (r) => r.body.data?.attributes.status === 'completed');
    expect(job.body.data.attributes).toMatchObject({ type: 'instance.action', operation: 'stop', status: 'completed' });
    // The 202's jobId resolves as a job too: the batch, summed up (one item was rejected, so it failed).
    const batchJob = await eventually(() => api.get(`/v1/jobs/${res.body.jobId}`), (r) => r.body.data?.attributes.status === 'failed');
    expect(batchJob.status).toBe(200);
    expect(batchJob.body.data).toMatchObject({ id: res.body.jobId, type: 'jobs', attributes: { type: 'batch.action', operation: 'stop', status: 'failed', resourceType: 'batch', resourceId: res.body.jobId } });
    expect(batchJob.body.data.attributes.error).toContain('1 of 3');
    expect(batchJob.body.data.attributes.completedAt).toEqual(expect.any(String));
    const retried = await api.post(`/v1/jobs/${res.body.jobId}/retry`);
    expect([retried.status, retried.body.errors[0].code]).toEqual([400, 'RETRY_FAILED']);
    // Another project sees neither.
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `batch-other-job-${profile}` });
    expect((await srv.as(other.body.included[0].attributes.key).get(`/v1/jobs/${res.body.jobId}`)).status).toBe(404);
  });

  it('rejects a wrong-status item with INVALID_STATE and deletes the rest', async () => {
    const start = await api.post('/v1/batch/batch/action', { action: 'start', resourceType: 'instances', resourceIds: [ids[0], ids[2]] });
    const items = start.body.data.attributes.items;
    expect(items[1]).toMatchObject({ resourceId: ids[2], status: 'rejected', code: 'INVALID_STATE' });
    await eventually(() => status(start.body.data.id), (r) => r.body.data.attributes.inProgress === 0);

    const del = await api.post('/v1/batch/batch/delete', { resourceType: 'instances', resourceIds: ids });
    expect(del.status).toBe(202);
    const done = await eventually(() => status(del.body.data.id), (r) => r.body.data.attributes.inProgress === 0);
    expect(done.body.data.attributes).toMatchObject({ action: 'delete', status: 'completed', succeeded: 3 });
    // Every item done: the batch's job is completed.
    const delJob = await eventually(() => api.get(`/v1/jobs/${del.body.jobId}`), (r) => r.body.data?.attributes.status === 'completed');
    expect(delJob.body.data.attributes).toMatchObject({ type: 'batch.delete', status: 'completed', error: null, attempts: 1 });
    expect(delJob.body.data.attributes.payload).toMatchObject({ resourceIds: ids, succeeded: 3, failed: 0 });
    for (const id of ids) expect((await settles(`/v1/instances/${id}`, 'terminated')).body.data.attributes.status).toBe('terminated');
  });

  it('batches server power actions and deletes too (locked ones are rejected)', async () => {
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-batch-srv' })).body.data.id;
    const mk = async (name: string) =>
      (await api.post('/v1/servers', { name, hostname: name, site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'hourly', role: 'VirtualMachine', provider: providerId })).body.data.id as string;
    const [a, b] = [await mk('bs-a'), await mk('bs-b')];
    for (const id of [a, b]) await eventually(() => api.get(`/v1/servers/${id}`), (r) => r.body.data.attributes.status === 'active');
    await api.patch(`/v1/servers/${b}`, { locked: true });
    const off = await api.post('/v1/batch/batch/action', { action: 'stop', resourceType: 'servers', resourceIds: [a, b] });
    expect(off.status).toBe(202);
    expect(off.body.data.attributes.items[1]).toMatchObject({ resourceId: b, status: 'rejected', code: 'INVALID_STATE' });
    const done = await eventually(() => status(off.body.data.id), (r) => r.body.data.attributes.inProgress === 0);
    expect(done.body.data.attributes).toMatchObject({ status: 'partially_failed', succeeded: 1, failed: 1 });
    expect((await settles(`/v1/servers/${a}`, 'stopped')).body.data.attributes.status).toBe('stopped');
    const job = await api.get(`/v1/jobs/${off.body.data.attributes.items[0].jobId}`);
    expect(job.body.data.attributes).toMatchObject({ type: 'server.action', operation: 'power_off' });
    const del = await api.post('/v1/batch/batch/delete', { resourceType: 'servers', resourceIds: [a] });
    await eventually(() => status(del.body.data.id), (r) => r.body.data.attributes.inProgress === 0);
    expect((await settles(`/v1/servers/${a}`, 'terminated')).body.data.attributes.status).toBe('terminated');
  });

  it('validates the body, hides other projects, and 404s unknown batches', async () => {
    const empty = await api.post('/v1/batch/batch/action', { action: 'stop', resourceType: 'instances', resourceIds: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].source.pointer).toBe('/resourceIds');
    expect((await api.post('/v1/batch/batch/action', { action: 'explode', resourceType: 'instances', resourceIds: ['a'] })).status).toBe(400);
    expect((await api.post('/v1/batch/batch/action', { action: 'stop', resourceType: 'instances', resourceIds: ['a', 'a'] })).status).toBe(400);
    expect((await api.get('/v1/batch/batch/status?batchId=nope')).status).toBe(404);
    expect((await api.get('/v1/batch/batch/status')).status).toBe(400);

    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `batch-other-${profile}` });
    const stranger = srv.as(other.body.included[0].attributes.key);
    const theirs = await stranger.post('/v1/batch/batch/action', { action: 'stop', resourceType: 'instances', resourceIds: [ids[0]] });
    expect(theirs.body.data.attributes.items[0]).toMatchObject({ status: 'rejected', code: 'NOT_FOUND' });
    const mine = await api.post('/v1/batch/batch/action', { action: 'stop', resourceType: 'instances', resourceIds: [ids[0]] });
    expect((await stranger.get(`/v1/batch/batch/status?batchId=${mine.body.data.id}`)).status).toBe(404);
  });
});
