import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { eventually } from '../support/wait';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

describe.each<Profile>(['embedded', 'server'])('storage volumes, a declared job-backed resource (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let metal: string;
  const vol = { name: 'data', sizeGb: 50, region: 'us-east-1' };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-vol' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-metal' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const get = (id: string) => api.get(`/v1/storage/volumes/${id}`);
  const status = (s: string) => (r: { body: { data?: { attributes?: { status?: string } } } }) => r.body.data?.attributes?.status === s;
  const activeInstance = async (name: string, region = 'us-east-1', tags: Record<string, string> = {}) => {
    const res = await api.post('/v1/instances', { name, providerId: cloud, region, instanceType: 'pc-t3-medium', tags });
    expect(res.status).toBe(202);
    // A create the `simulate` tag fails retries on the clock.
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${res.body.jobId}`), (r) => r.body.data.attributes.status === 'completed');
    await eventually(() => api.get(`/v1/instances/${res.body.data.id}`), status('active'));
    return res.body.data.id as string;
  };

  it('creates a volume as a job (202, volume.create) on the only provider that offers volumes', async () => {
    const res = await api.post('/v1/storage/volumes', vol);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'volumes', attributes: { ...vol, status: 'creating', providerId: cloud, instanceId: null, errorMessage: null } });
    const job = await api.get(`/v1/jobs/${res.body.jobId}`);
    expect(job.body.data.attributes).toMatchObject({ type: 'volume.create' });
    const ready = await eventually(() => get(res.body.data.id), status('available'));
    expect(ready.body.data.attributes.devicePath).toEqual(expect.stringMatching(/^\/dev\//));
    // The outcome is recorded on the resource first, then on its job.
    await eventually(() => api.get(`/v1/jobs/${res.body.jobId}`), (r) => r.body.data?.attributes.status === 'completed');
    const listed = await api.get('/v1/storage/volumes?status=available&limit=100');
    expect(listed.body.data.map((v: { id: string }) => v.id)).toContain(res.body.data.id);
    expect(listed.body.meta.total).toBeGreaterThanOrEqual(1);
  });

  it('refuses bad input: 400 with the field, 422 for a region the provider lacks, 400 UNSUPPORTED_PROVIDER', async () => {
    const bad = await api.post('/v1/storage/volumes', { ...vol, sizeGb: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source.pointer).toBe('/sizeGb');
    const region = await api.post('/v1/storage/volumes', { ...vol, region: 'mars-1' });
    expect(region.status).toBe(422);
    expect(region.body.errors[0].code).toBe('INVALID_REGION');
    const unsupported = await api.post(`/v1/storage/volumes?providerId=${metal}`, vol);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'elsewhere' });
    const stranger = srv.as(other.body.included[0].attributes.key);
    expect((await stranger.post('/v1/storage/volumes', vol)).status).toBe(404); // no provider there
    const mine = await api.post('/v1/storage/volumes', vol);
    expect((await stranger.get(`/v1/storage/volumes/${mine.body.data.id}`)).status).toBe(404);
    expect((await api.get(`/v1/storage/volumes/${mine.body.data.id}?providerId=${metal}`)).status).toBe(404);
  });

  it('attaches to an instance of its region, refuses to terminate that instance, detaches and deletes', async () => {
    const instanceId = await activeInstance('with-disk');
    const created = await api.post('/v1/storage/volumes', vol);
    const id = created.body.data.id;
    await eventually(() => get(id), status('available'));
    const attach = await api.post(`/v1/storage/volumes/${id}/attach`, { instanceId });
    expect(attach.status).toBe(202);
    expect(attach.body.data.attributes.status).toBe('attaching');
    expect((await api.get(`/v1/jobs/${attach.body.jobId}`)).body.data.attributes.type).toBe('volume.attach');
    const attached = await eventually(() => get(id), status('attached'));
    expect(attached.body.data.attributes.instanceId).toBe(instanceId);
    expect(attached.body.data.attributes.devicePath).toEqual(expect.stringMatching(/^\/dev\//));
    expect((await api.post(`/v1/storage/volumes/${id}/attach`, { instanceId })).status).toBe(409);
    expect((await api.delete(`/v1/storage/volumes/${id}`)).status).toBe(409);

    const terminate = await api.delete(`/v1/instances/${instanceId}`);
    expect(terminate.status).toBe(409);
    expect(terminate.body.errors[0].code).toBe('INVALID_STATE');
    expect(terminate.body.errors[0].detail).toContain(id);
    // A batch delete refuses it the same way.
    const batch = await api.post('/v1/batch/batch/delete', { resourceType: 'instances', resourceIds: [instanceId] });
    expect(batch.body.data.attributes.items[0]).toMatchObject({ resourceId: instanceId, status: 'rejected', code: 'INVALID_STATE' });
    expect((await api.get(`/v1/instances/${instanceId}`)).body.data.attributes.status).toBe('active');

    expect((await api.post(`/v1/storage/volumes/${id}/detach`, {})).status).toBe(202);
    const detached = await eventually(() => get(id), status('available'));
    expect(detached.body.data.attributes.instanceId).toBeNull();
    expect((await api.delete(`/v1/instances/${instanceId}`)).status).toBe(202);

    const del = await api.delete(`/v1/storage/volumes/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('deleting');
    await eventually(() => get(id), (r) => r.status === 404);
  });

  it('refuses an instance of another region (422) or of no one (404 on the field)', async () => {
    const elsewhere = await activeInstance('far', 'eu-west-2');
    const created = await api.post('/v1/storage/volumes', vol);
    await eventually(() => get(created.body.data.id), status('available'));
    const far = await api.post(`/v1/storage/volumes/${created.body.data.id}/attach`, { instanceId: elsewhere });
    expect(far.status).toBe(422);
    expect(far.body.errors[0].code).toBe('INVALID_REGION');
    const missing = await api.post(`/v1/storage/volumes/${created.body.data.id}/attach`, { instanceId: 'no-such-instance' });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].source.pointer).toBe('/instanceId');
    expect((await get(created.body.data.id)).body.data.attributes.status).toBe('available');
  });

  it('two attaches of one volume at the same moment: exactly one wins, the other gets 409', async () => {
    const [a, b] = await Promise.all([activeInstance('race-a'), activeInstance('race-b')]);
    const created = await api.post('/v1/storage/volumes', vol);
    const id = created.body.data.id;
    await eventually(() => get(id), status('available'));
    const answers = await Promise.all([api.post(`/v1/storage/volumes/${id}/attach`, { instanceId: a }), api.post(`/v1/storage/volumes/${id}/attach`, { instanceId: b })]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    const winner = answers[0].status === 202 ? a : b;
    const attached = await eventually(() => get(id), status('attached'));
    expect(attached.body.data.attributes.instanceId).toBe(winner);
    const events = (await srv.platform.events.readStream(`volume-${id}`)).map((e) => e.type);
    expect(events.filter((t) => t === 'storage.VolumeOperationRequested.v1')).toHaveLength(1);
  });

  it('keeps operator records: an import is validated like a create and recorded as available with its external id', async () => {
    const imported = await api.post('/v1/storage/volumes/db', { ...vol, name: 'legacy', externalId: 'vol-0abc' });
    expect(imported.status).toBe(201);
    expect(imported.body.data.attributes).toMatchObject({ name: 'legacy', status: 'available', externalId: 'vol-0abc', providerId: cloud });
    expect((await get(imported.body.data.id)).body.data.attributes.status).toBe('available');
    const records = await api.get('/v1/storage/volumes/db?limit=100');
    expect(records.body.data.find((r: { id: string }) => r.id === imported.body.data.id).attributes.externalId).toBe('vol-0abc');
    expect((await api.post('/v1/storage/volumes/db', { ...vol, name: 'legacy' })).status).toBe(400);
    expect((await api.post('/v1/storage/volumes/db', { ...vol, region: 'mars-1', externalId: 'x' })).status).toBe(422);
  });

  it("takes the simulator's failure injection from the target too: attaching to a `fail:2` instance completes on the third attempt", async () => {
    const instanceId = await activeInstance('flaky-host', 'us-east-1', { simulate: 'fail:2' });
    const created = await api.post('/v1/storage/volumes', vol);
    await eventually(() => get(created.body.data.id), status('available'));
    const attach = await api.post(`/v1/storage/volumes/${created.body.data.id}/attach`, { instanceId });
    const done = await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${attach.body.jobId}`), (r) => r.body.data.attributes.status === 'completed');
    expect(done.body.data.attributes.attempts).toBe(3);
    expect((await get(created.body.data.id)).body.data.attributes).toMatchObject({ status: 'attached', instanceId });
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    const flaky = await api.post('/v1/storage/volumes', { ...vol, tags: { simulate: 'fail:2' } });
    const done = await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${flaky.body.jobId}`), (r) => r.body.data.attributes.status === 'completed');
    expect(done.body.data.attributes.attempts).toBe(3);
    await eventually(() => get(flaky.body.data.id), status('available'));

    const doomed = await api.post('/v1/storage/volumes', { ...vol, tags: { simulate: 'fail:always' } });
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${doomed.body.jobId}`), (r) => r.body.data.attributes.status === 'failed');
    const broken = await eventually(() => get(doomed.body.data.id), status('error'));
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));
    const retried = await api.post(`/v1/jobs/${doomed.body.jobId}/retry`);
    expect(retried.status).toBe(200);
    expect((await get(doomed.body.data.id)).body.data.attributes.status).toBe('creating');
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${doomed.body.jobId}`), (r) => r.body.data.attributes.status === 'failed' && r.body.data.attributes.attempts === 3);
    // A volume in error can be deleted.
    await eventually(() => get(doomed.body.data.id), status('error'));
    expect((await api.delete(`/v1/storage/volumes/${doomed.body.data.id}`)).status).toBe(202);
  });
});
