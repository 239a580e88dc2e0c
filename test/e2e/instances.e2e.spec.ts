import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { eventually } from '../support/wait';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { ed25519Key } from '../support/ssh-keys';



describe.each<Profile>(['embedded', 'server'])('instances and jobs end to end (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let providerId: string;
  const base = { region: 'us-east-1', instanceType: 'pc-t3-medium' };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-123' });
    expect(provider.status).toBe(201);
    providerId = provider.body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const job = (id: string) => api.get(`/v1/jobs/${id}`);
  const instance = (id: string) => api.get(`/v1/instances/${id}`);

  it('accepts a create (202), is readable at once, and its job completes with the instance active', async () => {
    const res = await api.post('/v1/instances', { ...base, name: 'web-1', providerId, tags: { team: 'core', env: 'prod' } });
    expect(res.status).toBe(202);
    expect(res.body.jobId).toEqual(expect.any(String));
    expect(res.body.data.type).toBe('instances');
    expect(res.body.data.attributes.status).toBe('creating');
    expect(res.body.data.attributes).toMatchObject({ name: 'web-1', providerId, region: 'us-east-1', plan: { slug: 'pc-t3-medium' }, role: 'VirtualMachine' });
    expect(res.body.data.attributes.tags).toEqual([{ key: 'env', value: 'prod' }, { key: 'team', value: 'core' }]);
    const id = res.body.data.id;
    expect((await instance(id)).status).toBe(200);
    // No image named: the provider's default OS, never null.
    expect(res.body.data.attributes.operating_system).toMatchObject({ slug: 'ubuntu_24_04_x64_lts' });
    expect((await instance(id)).body.data.attributes.operating_system).toBe('ubuntu_24_04_x64_lts');
    const listed = await api.get('/v1/instances?sort=-createdAt');
    expect(listed.body.data.map((d: { id: string }) => d.id)).toContain(id);
    // ?region= takes the region as creates do: slug, id or site.
    const regionId = (await api.get('/v1/catalog/regions/us-east-1')).body.data.id;
    for (const ref of ['us-east-1', regionId, res.body.data.attributes.site]) {
      expect([ref, (await api.get(`/v1/instances?region=${encodeURIComponent(ref)}&limit=100`)).body.data.map((d: { id: string }) => d.id)]).toEqual([ref, expect.arrayContaining([id])]);
    }
    expect((await api.get('/v1/instances?region=us-west-2&limit=100')).body.data.map((d: { id: string }) => d.id)).not.toContain(id);
    expect((await api.get('/v1/instances?region=atlantis&limit=100')).body.data).toEqual([]);
    // Ids are opaque: an unknown one is a 404 at any length, never a 400.
    for (const unknown of ['x'.repeat(65), 'y'.repeat(99), 'z'.repeat(1000)]) {
      expect([unknown.length, (await instance(unknown)).status, (await job(unknown)).status]).toEqual([unknown.length, 404, 404]);
    }
    expect((await job(res.body.jobId)).body.data.attributes).toMatchObject({ type: 'instance.create', maxAttempts: 3 });
    // The job describes its operation (as a server create's does); the full spec stays on the instance.
    expect((await job(res.body.jobId)).body.data.attributes.payload).toEqual({
      name: 'web-1',
      plan: 'pc-t3-medium',
      operatingSystem: 'ubuntu_24_04_x64_lts',
      region: 'us-east-1',
      site: res.body.data.attributes.site,
      hostname: res.body.data.attributes.hostname,
      workerCount: 1,
      sshKeyId: null,
    });

    const done = await eventually(() => job(res.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    expect(done.body.data.attributes).toMatchObject({ status: 'completed', attempts: 1, error: null });
    const active = await eventually(() => instance(id), (r) => r.body.data.attributes.status === 'active');
    expect(active.body.data.attributes.status).toBe('active');
    expect(active.body.data.attributes.primary_ipv4).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // Newest first, like every list (DECISIONS 2); ?sort=createdAt reads it in order.
    const eventNames = (r: { body: { data: Array<{ attributes: { event: string } }> } }) => r.body.data.map((e) => e.attributes.event);
    const inOrder = ['compute.InstanceRequested.v1', 'compute.InstanceProvisioningStarted.v1', 'compute.InstanceProvisioned.v1'];
    // The log is a read model of its own, following the job's events like the instance does.
    const log = await eventually(() => api.get(`/v1/instances/${id}/events`), (r) => r.body.data.length === inOrder.length);
    expect(eventNames(log)).toEqual([...inOrder].reverse());
    expect(eventNames(await api.get(`/v1/instances/${id}/events?sort=createdAt`))).toEqual(inOrder);
    const ssh = await api.get(`/v1/instances/${id}/ssh`);
    expect(ssh.body.data.attributes.host).toBe(active.body.data.attributes.primary_ipv4);
    const metrics = await api.get(`/v1/instances/${id}/metrics?points=5`);
    expect(metrics.body.data.attributes.samples).toHaveLength(5);
  });

  it('retries a failing provider twice and completes on the third attempt', async () => {
    const res = await api.post('/v1/instances', { ...base, name: 'flaky', providerId, tags: { simulate: 'fail:2' } });
    expect(res.status).toBe(202);
    const pending = await eventually(() => job(res.body.jobId), (r) => r.body.data.attributes.attempts === 1 && r.body.data.attributes.status === 'pending');
    expect(pending.body.data.attributes.nextAttemptAt).toEqual(expect.any(String));
    const done = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    expect(done.body.data.attributes).toMatchObject({ status: 'completed', attempts: 3 });
    const log = await eventually(() => api.get(`/v1/instances/${res.body.data.id}/events?limit=100`), (r) => r.body.data[0]?.attributes.event === 'compute.InstanceProvisioned.v1');
    expect(log.body.data[0].attributes.event).toBe('compute.InstanceProvisioned.v1');
    const jobEvents = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).map((e) => e.type);
    expect(jobEvents.filter((t) => t === 'jobs.JobAttemptFailed.v1')).toHaveLength(2);
    const failures = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).filter((e) => e.type === 'jobs.JobAttemptFailed.v1');
    const gap = (i: number) => Date.parse(failures[i].data.retryAt as string) - Date.parse(failures[i].data.failedAt as string);
    expect([gap(0), gap(1)]).toEqual([1000, 2000]);
  });

  it('gives a provider error marked permanent its 3 attempts too (spec §3.4)', async () => {
    const res = await api.post('/v1/instances', { ...base, name: 'permanent', providerId, tags: { simulate: 'fail-permanent' } });
    expect(res.status).toBe(202);
    const failed = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'failed');
    expect(failed.body.data.attributes).toMatchObject({ status: 'failed', attempts: 3 });
    expect(failed.body.data.attributes.error).toContain('permanent');
    const failures = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).filter((e) => e.type === 'jobs.JobAttemptFailed.v1');
    expect(failures.map((e) => e.data.attempt)).toEqual([1, 2, 3]);
  });

  it('fails for good after 3 attempts (instance error), and a manual retry starts it over', async () => {
    const res = await api.post('/v1/instances', { ...base, name: 'doomed', providerId, tags: { simulate: 'fail:always' } });
    const failed = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'failed');
    expect(failed.body.data.attributes).toMatchObject({ status: 'failed', attempts: 3 });
    expect(failed.body.data.attributes.error).toEqual(expect.any(String));
    const broken = await eventually(() => instance(res.body.data.id), (r) => r.body.data.attributes.status === 'error');
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));
    expect((await api.get('/v1/jobs/failed')).body.data.map((j: { id: string }) => j.id)).toContain(res.body.jobId);
    expect((await api.get('/v1/jobs/failed?sort=-status,createdAt')).body.data.map((j: { id: string }) => j.id)).toContain(res.body.jobId);

    const retried = await api.post(`/v1/jobs/${res.body.jobId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual({ jobId: res.body.jobId, status: 'retrying' });
    // Back to where the operation starts, with a fresh budget of attempts.
    const restarted = await job(res.body.jobId);
    expect(['pending', 'processing']).toContain(restarted.body.data.attributes.status);
    expect(restarted.body.data.attributes.attempts).toBeLessThanOrEqual(1);
    expect(['creating', 'provisioning']).toContain((await instance(res.body.data.id)).body.data.attributes.status);
    const again = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'failed');
    expect(again.body.data.attributes).toMatchObject({ status: 'failed', attempts: 3 });
    const types = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).map((e) => e.type);
    expect(types.filter((t) => t === 'jobs.JobAttemptStarted.v1')).toHaveLength(6);
    expect(types.filter((t) => t === 'jobs.JobRetried.v1')).toHaveLength(1);
    // The retry resets the instance before it re-opens the job, so the next round of attempts finds it reset.
    const starts = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).filter((e) => e.type === 'jobs.JobAttemptStarted.v1');
    const reset = (await srv.platform.events.readStream(`instance-${res.body.data.id}`)).find((e) => e.type === 'compute.InstanceOperationRetried.v1');
    expect(reset!.position).toBeLessThan(starts[3].position);

    const ok = await api.post('/v1/instances', { ...base, name: 'ok2', providerId });
    const notFailed = await api.post(`/v1/jobs/${ok.body.jobId}/retry`);
    expect(notFailed.status).toBe(400);
    expect(notFailed.body.errors[0].code).toBe('RETRY_FAILED');
    expect((await api.post('/v1/jobs/00000000-0000-0000-0000-000000000000/retry')).status).toBe(404);
  });

  it('runs actions through their lifecycle and refuses wrong-status actions with 409 INVALID_STATE', async () => {
    const res = await api.post('/v1/instances', { ...base, name: 'lifecycle', providerId });
    const id = res.body.data.id;
    await eventually(() => instance(id), (r) => r.body.data.attributes.status === 'active');
    const wrong = await api.post(`/v1/instances/${id}/actions`, { data: { type: 'actions', attributes: { action: 'start' } } });
    expect(wrong.status).toBe(409);
    expect(wrong.body.errors[0]).toMatchObject({ code: 'INVALID_STATE' });
    expect(wrong.body.errors[0].detail).toContain('active');

    const stop = await api.post(`/v1/instances/${id}/actions`, { data: { type: 'actions', attributes: { action: 'stop' } } });
    expect(stop.status).toBe(202);
    expect(stop.body.data.attributes.status).toBe('stopping');
    await eventually(() => instance(id), (r) => r.body.data.attributes.status === 'stopped');
    const start = await api.post(`/v1/instances/${id}/actions`, { action: 'start' });
    expect(start.status).toBe(202);
    await eventually(() => instance(id), (r) => r.body.data.attributes.status === 'active');
    const restart = await api.post(`/v1/instances/${id}/actions`, { action: 'restart' });
    expect(restart.body.data.attributes.status).toBe('stopping');
    await eventually(() => job(restart.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    // The instances read model follows its own subscription: it may show the restart a moment after the job.
    expect((await eventually(() => instance(id), (r) => r.body.data.attributes.status === 'active')).body.data.attributes.status).toBe('active');
    // DECISIONS 6: active → stopping → starting → active, each a step of its own in the history.
    const restartEvents = (await srv.platform.events.readStream(`instance-${id}`)).filter((e) => e.data.jobId === restart.body.jobId);
    expect(restartEvents.map((e) => e.type)).toEqual(['compute.InstanceActionRequested.v1', 'compute.InstanceRebooting.v1', 'compute.InstanceStarted.v1']);
    expect(new Set(restartEvents.map((e) => e.position)).size).toBe(3);

    const patched = await api.patch(`/v1/instances/${id}`, { name: 'renamed', tags: [{ key: 'a', value: '1' }] });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ name: 'renamed', tags: [{ key: 'a', value: '1' }] });

    const del = await api.delete(`/v1/instances/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('terminating');
    await eventually(() => instance(id), (r) => r.body.data.attributes.status === 'terminated');
    const gone = (await instance(id)).body.data.attributes;
    expect(gone.deletedAt).toEqual(expect.any(String));
    expect((await api.get('/v1/instances?limit=100')).body.data.map((d: { id: string }) => d.id)).not.toContain(id);
    expect((await api.get('/v1/instances?status=terminated&limit=100')).body.data.map((d: { id: string }) => d.id)).toContain(id);
    // JSON:API's filter[status] is the same filter; a parameter the route does not take is a 400, not an unfiltered list.
    const aliased = (await api.get('/v1/instances?filter[status]=terminated&limit=100')).body.data;
    expect(aliased.map((d: { id: string }) => d.id)).toContain(id);
    expect(aliased.every((d: { attributes: { status: string } }) => d.attributes.status === 'terminated')).toBe(true);
    for (const [path, parameter] of [['/v1/jobs?type=instance.create', 'type'], ['/v1/instances?bogus=1', 'bogus'], [`/v1/instances/${id}?status=active`, 'status']]) {
      const refused = await api.get(path);
      expect([refused.status, refused.body.errors[0]]).toEqual([400, expect.objectContaining({ code: 'INVALID_QUERY', source: { parameter } })]);
    }
    expect((await api.delete(`/v1/instances/${id}`)).status).toBe(409);
    const jobs = await api.get(`/v1/instances/${id}/jobs?limit=100`);
    expect(jobs.body.data.map((j: { attributes: { type: string } }) => j.attributes.type).sort()).toEqual(['instance.action', 'instance.action', 'instance.action', 'instance.create', 'instance.delete']);
  });

  it('validates bodies and the catalog, and hides other projects', async () => {
    const bad = await api.post('/v1/instances', { name: '', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium', workerCount: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/name', '/workerCount']);
    // One tags schema for every resource (DECISIONS 13): keys unique, at most 50.
    const dupTags = await api.post('/v1/instances', { ...base, name: 'x', providerId, tags: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] });
    expect([dupTags.status, dupTags.body.errors[0].source.pointer]).toEqual([400, '/tags']);
    const manyTags = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect((await api.post('/v1/instances', { ...base, name: 'x', providerId, tags: manyTags })).status).toBe(400);
    const region = await api.post('/v1/instances', { ...base, name: 'x', providerId, region: 'mars-1' });
    expect(region.status).toBe(422);
    expect(region.body.errors[0]).toMatchObject({ code: 'INVALID_REGION', detail: 'Unknown region/site: mars-1' });
    expect((await api.post('/v1/instances', { ...base, name: 'x', providerId, instanceType: 'nope' })).body.errors[0].code).toBe('INVALID_PLAN');
    expect((await api.post('/v1/instances', { ...base, name: 'x', providerId, image: 'beos-5' })).body.errors[0].code).toBe('INVALID_OS');
    // An image the provider offers, but not for this kind of plan (no Windows on GPU plans).
    const gpuWindows = await api.post('/v1/instances', { ...base, name: 'x', providerId, instanceType: 'pc-g5-xlarge', image: 'windows_2022' });
    expect([gpuWindows.status, gpuWindows.body.errors[0].code]).toEqual([422, 'INVALID_OS']);
    expect(gpuWindows.body.errors[0].detail).toContain('virtual-machine-gpu');
    const missing = await api.post('/v1/instances', { ...base, name: 'x', providerId: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('PROVIDER_NOT_FOUND');

    const mine = await api.post('/v1/instances', { ...base, name: 'private', providerId });
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'other' });
    const stranger = srv.as(other.body.included[0].attributes.key);
    expect((await stranger.get(`/v1/instances/${mine.body.data.id}`)).status).toBe(404);
    expect((await stranger.post(`/v1/instances/${mine.body.data.id}/actions`, { action: 'stop' })).status).toBe(404);
    expect((await stranger.get(`/v1/jobs/${mine.body.jobId}`)).status).toBe(404);
    expect((await stranger.get('/v1/instances')).body.data).toEqual([]);
    expect((await api.get('/v1/instances?sort=bogus')).status).toBe(400);
  });

  it('injects a provider SSH key and reports its fingerprint; an unknown key is a 400 on /sshKeyId', async () => {
    const key = await api.post(`/v1/ssh-keys?providerId=${providerId}`, { name: 'deploy', publicKey: ed25519Key('deploy@test') });
    expect(key.status).toBe(201);
    const res = await api.post('/v1/instances', { ...base, name: 'keyed', providerId, sshKeyId: key.body.data.id });
    expect(res.status).toBe(202);
    expect(res.body.data.attributes).toMatchObject({ ssh_keys: [key.body.data.id], sshKeyFingerprint: key.body.data.attributes.fingerprint });
    await eventually(() => instance(res.body.data.id), (r) => r.body.data.attributes.status === 'active');
    const ssh = await api.get(`/v1/instances/${res.body.data.id}/ssh`);
    expect(ssh.body.data.attributes.keyFingerprint).toBe(key.body.data.attributes.fingerprint);
    const bad = await api.post('/v1/instances', { data: { type: 'instances', attributes: { ...base, name: 'nokey', providerId, sshKeyId: 'missing' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source.pointer).toBe('/data/attributes/sshKeyId');
  });

  it('replays an idempotent create instead of creating a second instance', async () => {
    const headers = { 'Idempotency-Key': `create-${profile}` };
    const a = await api.post('/v1/instances', { ...base, name: 'once', providerId }, headers);
    const b = await api.post('/v1/instances', { ...base, name: 'once', providerId }, headers);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body.data.id).toBe(a.body.data.id);
    const named = (await api.get('/v1/instances?limit=100')).body.data.filter((d: { attributes: { name: string } }) => d.attributes.name === 'once');
    expect(named).toHaveLength(1);
  });
});

describe('instances when the read models lag behind the bounded wait', () => {
  it('still answers an accepted create and action with the written instance, never 404', async () => {
    const srv = await startTestServer('server', { SIMULATOR_LATENCY: 'zero', CONSISTENCY_WAIT_MS: '1' });
    try {
      const api = srv.as(srv.bootstrap.apiKey);
      const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-lag' })).body.data.id;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => api.post('/v1/instances', { name: `lag-${i}`, providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' })),
      );
      for (const [i, r] of results.entries()) {
        expect([r.status, r.body?.errors?.[0]?.code]).toEqual([202, undefined]);
        expect(r.body.data.attributes).toMatchObject({ name: `lag-${i}`, providerId });
        // The answer shows what the create did, even when the job has already moved the instance on.
        expect(r.body.data.attributes.status).toBe('creating');
      }
    } finally {
      await srv.stop();
    }
  });
});
