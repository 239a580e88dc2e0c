import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { eventually } from '../support/wait';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

describe.each<Profile>(['embedded', 'server'])('AI models, a declared job-backed resource on the multi-cloud provider (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let multi: string;
  let cloud: string;
  let clusterId: string;
  const clusterBody = { name: 'gpu', region: 'us-east', version: '1.31.1', nodePools: [{ name: 'default', plan: 'mc-standard-2', count: 2 }] };
  const model = (over: Record<string, unknown> = {}) => ({ name: 'llama', framework: 'framework_2', modelId: 'meta/llama-3-8b', clusterId, ...over });

  type Res = { status: number; body: { data?: { attributes?: Record<string, unknown> } } };
  const attrs = (r: Res) => r.body.data?.attributes ?? {};
  const get = (id: string) => api.get(`/v1/models/${id}`);
  const status = (s: string) => (r: Res) => attrs(r).status === s;
  const jobOf = (id: string) => api.get(`/v1/jobs/${id}`);

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-models' })).body.data.id;
    // A public cloud beside it: it has clusters but no models, so a deploy still resolves to the multi-cloud provider.
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-cloud' })).body.data.id;
    const cluster = await api.post(`/v1/kubernetes/clusters?providerId=${multi}`, clusterBody);
    expect(cluster.status).toBe(202);
    clusterId = cluster.body.data.id;
    await eventually(() => api.get(`/v1/kubernetes/clusters/${clusterId}`), status('active'));
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('deploys as a model.deploy job: 201 deploying, then active with endpointUrl and multicloudServiceName', async () => {
    const res = await api.post('/v1/models', model({ replicas: 2, gpuType: 'a100', port: 8000 }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      type: 'ai-models',
      attributes: { clusterId, name: 'llama', framework: 'framework_2', modelId: 'meta/llama-3-8b', replicas: 2, gpuType: 'a100', port: 8000, status: 'deploying', endpointUrl: null, multicloudServiceName: null, providerId: multi },
    });
    expect(typeof res.body.data.attributes.createdAt).toBe('string');
    const job = await jobOf(res.body.jobId);
    expect(job.body.data.attributes.type).toBe('model.deploy');
    const active = await eventually(() => get(res.body.data.id), status('active'));
    expect(attrs(active).endpointUrl).toMatch(/^https:\/\/llama-[0-9a-f]+\.models\./);
    expect(attrs(active).multicloudServiceName).toMatch(/^svc-llama-/);
    await eventually(() => jobOf(res.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    const list = await api.get('/v1/models?limit=10');
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBeGreaterThanOrEqual(1);
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(res.body.data.id);
    expect(list.body.links.first).toBeDefined();
  });

  it('stops, starts and scales through POST /v1/models/{id}/actions, each a job; a wrong status is 409', async () => {
    const id = (await api.post('/v1/models', model({ name: 'actions' }))).body.data.id;
    await eventually(() => get(id), status('active'));
    const act = (body: unknown) => api.post(`/v1/models/${id}/actions`, body);

    const start = await act({ action: 'start' });
    expect(start.status).toBe(409);
    expect(start.body.errors[0].code).toBe('INVALID_STATE');

    const stop = await act({ action: 'stop' });
    expect(stop.status).toBe(202);
    expect(attrs(stop).status).toBe('stopping');
    expect((await jobOf(stop.body.jobId)).body.data.attributes.type).toBe('model.stop');
    const stopped = await eventually(() => get(id), status('stopped'));
    // A stopped model serves nothing.
    expect(attrs(stopped).endpointUrl).toBeNull();
    expect((await act({ action: 'scale', replicas: 3 })).status).toBe(409);

    const started = await act({ action: 'start' });
    expect(started.status).toBe(202);
    expect((await jobOf(started.body.jobId)).body.data.attributes.type).toBe('model.start');
    expect(attrs(await eventually(() => get(id), status('active'))).endpointUrl).toMatch(/^https:\/\//);

    const scaled = await act({ action: 'scale', replicas: 4 });
    expect(scaled.status).toBe(202);
    expect(attrs(scaled).status).toBe('scaling');
    expect((await jobOf(scaled.body.jobId)).body.data.attributes.type).toBe('model.scale');
    await eventually(() => get(id), (r) => attrs(r).status === 'active' && attrs(r).replicas === 4);
  });

  it('refuses bad action bodies with 400 and the field', async () => {
    const id = (await api.post('/v1/models', model({ name: 'bad-actions' }))).body.data.id;
    const cases: Array<[unknown, string]> = [
      [{ action: 'scale' }, '/replicas'],
      [{ action: 'scale', replicas: 0 }, '/replicas'],
      [{ action: 'scale', replicas: 101 }, '/replicas'],
      [{ action: 'scale', replicas: 1.5 }, '/replicas'],
      [{ action: 'stop', replicas: 2 }, '/replicas'],
      [{ action: 'reboot' }, '/action'],
      [{}, '/action'],
    ];
    for (const [body, pointer] of cases) {
      const res = await api.post(`/v1/models/${id}/actions`, body);
      expect({ body, status: res.status, pointer: res.body.errors?.[0]?.source?.pointer }).toEqual({ body, status: 400, pointer });
    }
  });

  it('validates the deploy: name, framework, modelId, replicas, port, gpuType (400 with the field)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, '/name'],
      [{ name: 'x'.repeat(101) }, '/name'],
      [{ name: undefined }, '/name'],
      [{ framework: 'pytorch' }, '/framework'],
      [{ framework: undefined }, '/framework'],
      [{ modelId: undefined }, '/modelId'],
      [{ replicas: 0 }, '/replicas'],
      [{ replicas: 101 }, '/replicas'],
      [{ replicas: '2' }, '/replicas'],
      [{ port: 0 }, '/port'],
      [{ port: 65536 }, '/port'],
      [{ gpuType: '' }, '/gpuType'],
      [{ clusterId: undefined }, '/clusterId'],
    ];
    for (const [over, pointer] of cases) {
      const res = await api.post('/v1/models', model(over));
      expect({ over, status: res.status, pointer: res.body.errors?.[0]?.source?.pointer }).toEqual({ over, status: 400, pointer });
    }
    // The name's upper bound itself is accepted.
    expect((await api.post('/v1/models', model({ name: 'x'.repeat(100) }))).status).toBe(201);
  });

  it('deploys on the multi-cloud provider only: another provider is 400 UNSUPPORTED_PROVIDER', async () => {
    const res = await api.post(`/v1/models?providerId=${cloud}`, model({ name: 'elsewhere' }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
    expect((await api.get(`/v1/providers/${cloud}`)).body.data.attributes.capabilities).not.toContain('models');
  });

  it('needs an active cluster of the project: unknown 404, not active 409 INVALID_STATE', async () => {
    const unknown = await api.post('/v1/models', model({ clusterId: 'no-such-cluster' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('NOT_FOUND');

    const broken = await api.post(`/v1/kubernetes/clusters?providerId=${multi}`, { ...clusterBody, name: 'broken', tags: { simulate: 'fail:always' } });
    // Its create's retries pass on the clock.
    await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${broken.body.jobId}`), (r) => r.body.data.attributes.status === 'failed');
    await eventually(() => api.get(`/v1/kubernetes/clusters/${broken.body.data.id}`), status('error'));
    const notActive = await api.post('/v1/models', model({ clusterId: broken.body.data.id }));
    expect(notActive.status).toBe(409);
    expect(notActive.body.errors[0].code).toBe('INVALID_STATE');
    expect(notActive.body.errors[0].detail).toContain('error');

    // Another project's cluster is as unknown as a missing one.
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'models elsewhere' });
    const stranger = srv.as(other.body.included[0].attributes.key);
    await stranger.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-other' });
    const theirs = await stranger.post('/v1/models', model());
    expect(theirs.status).toBe(404);
  });

  it('hides a model from another project (404 on get, actions and delete; absent from its list)', async () => {
    const id = (await api.post('/v1/models', model({ name: 'private' }))).body.data.id;
    await eventually(() => get(id), status('active'));
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'models stranger' });
    const stranger = srv.as(other.body.included[0].attributes.key);
    expect((await stranger.get(`/v1/models/${id}`)).status).toBe(404);
    expect((await stranger.post(`/v1/models/${id}/actions`, { action: 'stop' })).status).toBe(404);
    expect((await stranger.delete(`/v1/models/${id}`)).status).toBe(404);
    expect((await stranger.get('/v1/models')).body.data).toEqual([]);
    expect(attrs(await get(id)).status).toBe('active');
  });

  it('deletes a model as a model.delete job: deleting, then 404', async () => {
    const id = (await api.post('/v1/models', model({ name: 'doomed' }))).body.data.id;
    await eventually(() => get(id), status('active'));
    const del = await api.delete(`/v1/models/${id}`);
    expect(del.status).toBe(202);
    expect(attrs(del).status).toBe('deleting');
    expect((await jobOf(del.body.jobId)).body.data.attributes.type).toBe('model.delete');
    await eventually(() => get(id), (r) => r.status === 404);
    expect((await api.delete(`/v1/models/${id}`)).status).toBe(404);
  });

  it('keeps a cluster that serves models: its DELETE is 409 INVALID_STATE until they are deleted, then 204', async () => {
    const own = await api.post(`/v1/kubernetes/clusters?providerId=${multi}`, { ...clusterBody, name: 'serving' });
    await eventually(() => api.get(`/v1/kubernetes/clusters/${own.body.data.id}`), status('active'));
    const id = (await api.post('/v1/models', model({ name: 'tenant', clusterId: own.body.data.id }))).body.data.id;
    await eventually(() => get(id), status('active'));
    const refused = await api.delete(`/v1/kubernetes/clusters/${own.body.data.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ code: 'INVALID_STATE', detail: expect.stringContaining('1 AI model') });
    expect(attrs(await api.get(`/v1/kubernetes/clusters/${own.body.data.id}`)).status).toBe('active');
    expect((await api.delete(`/v1/models/${id}`)).status).toBe(202);
    await eventually(() => get(id), (r) => r.status === 404);
    expect((await api.delete(`/v1/kubernetes/clusters/${own.body.data.id}`)).status).toBe(204);
  });

  it('ends a deploy that keeps failing in failed, with the error, after the job failed its 3 attempts; a failed model accepts a delete', async () => {
    const res = await api.post('/v1/models', model({ name: 'broken', tags: { simulate: 'fail:always' } }));
    expect(res.status).toBe(201);
    // The deploy's retries pass on the clock.
    const job = await eventuallyRetrying(clock, () => jobOf(res.body.jobId), (r) => r.body.data.attributes.status === 'failed');
    expect(job.body.data.attributes.attempts).toBe(3);
    const failed = await eventually(() => get(res.body.data.id), status('failed'));
    expect(attrs(failed).errorMessage).toMatch(/Simulated failure/);
    expect(attrs(failed).endpointUrl).toBeNull();
    expect((await api.get('/v1/models?status=failed')).body.data.map((d: { id: string }) => d.id)).toEqual([res.body.data.id]);
    expect((await api.post(`/v1/models/${res.body.data.id}/actions`, { action: 'stop' })).status).toBe(409);
    // Its `simulate` tag fails every operation, so only the request is checked here.
    const del = await api.delete(`/v1/models/${res.body.data.id}`);
    expect(del.status).toBe(202);
    expect(attrs(del).status).toBe('deleting');
  });
});
