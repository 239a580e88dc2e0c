import { X509Certificate } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { parse } from 'yaml';
import { ManualClock } from '../../libs/runtime/src/clock';
import { requireEngine } from '../engines';
import type { TestResponse } from '../support/http-client';
import { eventuallyRetrying, type JobRetryView } from '../support/job-retries';
import { waitForTopic } from '../support/kafka';
import { until } from '../support/until';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

describe.each<Profile>(['embedded', 'server'])('Kubernetes clusters, a declared job-backed resource (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let metal: string;
  const cluster = { name: 'prod', region: 'us-east-1', version: '1.31.1', nodePools: [{ name: 'default', plan: 'pc-t3-medium', count: 3 }] };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-k8s' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-metal' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const get = (id: string) => api.get(`/v1/kubernetes/clusters/${id}`);
  const status = (s: string) => (r: { body: { data?: { attributes?: { status?: string } } } }) => r.body.data?.attributes?.status === s;
  const jobStatus = (s: string, attempts?: number) => (r: { body: { data: { attributes: { status: string; attempts: number } } } }) =>
    r.body.data.attributes.status === s && (attempts === undefined || r.body.data.attributes.attempts === attempts);

  it('creates a cluster as a job (202, cluster.create); once active its kubeconfig joins cluster, user and context, and the token is in no event or log', async () => {
    const res = await api.post('/v1/kubernetes/clusters', cluster);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'kubernetes-clusters', attributes: { ...cluster, status: 'creating', providerId: cloud, errorMessage: null, endpoint: null } });
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('cluster.create');
    const id = res.body.data.id;
    const ready = await until(() => get(id), status('active'));
    expect(ready.body.data.attributes.endpoint).toMatch(/^https:\/\//);

    const kc = await api.get(`/v1/kubernetes/clusters/${id}/kubeconfig`);
    expect(kc.status).toBe(200);
    expect(kc.headers['content-type']).toMatch(/^application\/yaml/);
    const config = parse(kc.text);
    expect(config).toMatchObject({ apiVersion: 'v1', kind: 'Config' });
    expect(config.clusters).toHaveLength(1);
    expect(config.users).toHaveLength(1);
    expect(config.contexts).toHaveLength(1);
    const [ctx] = config.contexts;
    expect(config['current-context']).toBe(ctx.name);
    expect(ctx.context.cluster).toBe(config.clusters[0].name);
    expect(ctx.context.user).toBe(config.users[0].name);
    expect(config.clusters[0].cluster).toEqual({ server: ready.body.data.attributes.endpoint, 'certificate-authority-data': ready.body.data.attributes.caData });
    // A real CA certificate a TLS client can trust (not base64 noise in a PEM header).
    const ca = new X509Certificate(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64'));
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    const token: string = config.users[0].user.token;
    expect(token.length).toBeGreaterThanOrEqual(32);
    // The same credential every time (it is the cluster's, kept in the vault).
    expect(parse((await api.get(`/v1/kubernetes/clusters/${id}/kubeconfig`)).text).users[0].user.token).toBe(token);

    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
    expect(events.some((e) => e.streamId === `cluster-${id}`)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(srv.logs()).not.toContain(token);
    expect(JSON.stringify((await get(id)).body)).not.toContain(token);
    expect(JSON.stringify((await api.get('/v1/kubernetes/clusters?limit=100')).body)).not.toContain(token);
    expect(JSON.stringify((await api.get(`/v1/jobs/${res.body.jobId}`)).body)).not.toContain(token);
  });

  it('has no kubeconfig before it is active (409) and none for another project (404)', async () => {
    const doomed = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'never', tags: { simulate: 'fail:always' } });
    const kc = await api.get(`/v1/kubernetes/clusters/${doomed.body.data.id}/kubeconfig`);
    expect(kc.status).toBe(409);
    expect(kc.body.errors[0].code).toBe('INVALID_STATE');
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'k8s elsewhere' });
    const stranger = srv.as(other.body.included[0].attributes.key);
    const mine = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'mine' });
    await until(() => get(mine.body.data.id), status('active'));
    expect((await stranger.get(`/v1/kubernetes/clusters/${mine.body.data.id}/kubeconfig`)).status).toBe(404);
    expect((await stranger.get(`/v1/kubernetes/clusters/${mine.body.data.id}`)).status).toBe(404);
    expect((await stranger.delete(`/v1/kubernetes/clusters/${mine.body.data.id}`)).status).toBe(404);
    expect((await stranger.get('/v1/kubernetes/clusters')).body.data).toEqual([]);
    expect((await api.get(`/v1/kubernetes/clusters/${mine.body.data.id}/kubeconfig?providerId=${metal}`)).status).toBe(404);
    expect((await api.get('/v1/kubernetes/clusters/no-such-cluster/kubeconfig')).status).toBe(404);
  });

  it('refuses bad input: 400 with the field for versions, pools and counts, 422 for catalog misses, 400 UNSUPPORTED_PROVIDER', async () => {
    const post = (body: unknown, query = '') => api.post(`/v1/kubernetes/clusters${query}`, body);
    const expectField = async (body: unknown, pointer: string, status = 400, code?: string) => {
      const res = await post(body);
      expect(res.status).toBe(status);
      expect(res.body.errors[0].source?.pointer).toBe(pointer);
      if (code) expect(res.body.errors[0].code).toBe(code);
    };
    await expectField({ ...cluster, version: '1.12.0' }, '/version');
    await expectField({ ...cluster, version: undefined }, '/version');
    await expectField({ ...cluster, nodePools: [] }, '/nodePools');
    await expectField({ ...cluster, nodePools: Array.from({ length: 11 }, () => ({ plan: 'pc-t3-medium', count: 1 })) }, '/nodePools');
    await expectField({ ...cluster, nodePools: [{ plan: 'pc-t3-medium', count: 0 }] }, '/nodePools/0/count');
    await expectField({ ...cluster, nodePools: [{ plan: 'pc-t3-medium', count: 101 }] }, '/nodePools/0/count');
    await expectField({ ...cluster, nodePools: [{ plan: 'pc-t3-medium' }] }, '/nodePools/0/count');
    await expectField({ ...cluster, nodePools: [{ name: 'a', plan: 'pc-t3-medium', count: 1 }, { name: 'a', plan: 'pc-t3-medium', count: 1 }] }, '/nodePools/1/name');
    await expectField({ ...cluster, name: '' }, '/name');
    // Catalog misses: an unknown plan, another provider's plan, a plan not offered in the region.
    await expectField({ ...cluster, nodePools: [{ plan: 'pc-t3-medium', count: 1 }, { plan: 'no-such-plan', count: 1 }] }, '/nodePools/1/plan', 422, 'INVALID_PLAN');
    await expectField({ ...cluster, nodePools: [{ plan: 'mc-standard-2', count: 1 }] }, '/nodePools/0/plan', 422, 'INVALID_PLAN');
    await expectField({ ...cluster, region: 'eu-west-2', nodePools: [{ plan: 'pc-i4i-2xlarge', count: 1 }] }, '/nodePools/0/plan', 422, 'INVALID_PLAN');
    const region = await post({ ...cluster, region: 'mars-1' });
    expect(region.status).toBe(422);
    expect(region.body.errors[0].code).toBe('INVALID_REGION');
    const unsupported = await post(cluster, `?providerId=${metal}`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
    // A plan given by id is recorded as its slug.
    const plans = await api.get('/v1/plans?providerKind=provider_publiccloud&limit=100');
    const planId = plans.body.data.find((p: { attributes: { slug: string } }) => p.attributes.slug === 'pc-c6i-xlarge').id;
    const byId = await post({ ...cluster, name: 'by-id', nodePools: [{ plan: planId, count: 2 }] });
    expect(byId.status).toBe(202);
    expect(byId.body.data.attributes.nodePools).toEqual([{ plan: 'pc-c6i-xlarge', count: 2 }]);
  });

  it('lists the versions of the provider, newest first; refuses a region it lacks (422) and a provider without Kubernetes (400)', async () => {
    const res = await api.get('/v1/kubernetes/versions');
    expect(res.status).toBe(200);
    expect(res.body.data.map((v: { attributes: { version: string } }) => v.attributes.version)).toEqual(['1.31.1', '1.30.5', '1.29.9']);
    expect(res.body.data[0].attributes.latest).toBe(true);
    expect(res.body.meta.total).toBe(3);
    expect((await api.get('/v1/kubernetes/versions?region=us-east-1&limit=1')).body.data.map((v: { id: string }) => v.id)).toEqual(['1.31.1']);
    expect((await api.get('/v1/kubernetes/versions?region=mars-1')).status).toBe(422);
    const metalVersions = await api.get(`/v1/kubernetes/versions?providerId=${metal}`);
    expect(metalVersions.status).toBe(400);
    expect(metalVersions.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
  });

  it('deletes with 204: the cluster.delete job runs behind it, the cluster lists as deleting until done, then 404', async () => {
    const created = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'short-lived' });
    const id = created.body.data.id;
    await until(() => get(id), status('active'));
    const del = await api.delete(`/v1/kubernetes/clusters/${id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const listed = await api.get('/v1/kubernetes/clusters?limit=100');
    const seen = listed.body.data.find((c: { id: string }) => c.id === id);
    // Deleting, or already gone if the job was that quick; never active.
    if (seen) expect(seen.attributes.status).toBe('deleting');
    await until(() => get(id), (r) => r.status === 404);
    expect((await api.get(`/v1/kubernetes/clusters/${id}/kubeconfig`)).status).toBe(404);
    expect((await api.delete(`/v1/kubernetes/clusters/${id}`)).status).toBe(404);
    // The outcome is recorded on the resource first, then on its job.
    const deleteJob = (r: { body: { data: Array<{ attributes: { resourceId: string; type: string; status: string } }> } }) => r.body.data.find((j) => j.attributes.resourceId === id && j.attributes.type === 'cluster.delete');
    await until(() => api.get('/v1/jobs?limit=100'), (r) => deleteJob(r)?.attributes.status === 'completed');
    // A cluster still creating cannot be deleted.
    const slow = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'slow', tags: { simulate: 'fail:always' } });
    expect((await api.delete(`/v1/kubernetes/clusters/${slow.body.data.id}`)).status).toBe(409);
  });

  it('pages and filters the list by status, region and provider', async () => {
    const a = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'list-a', region: 'eu-west-2' });
    await until(() => get(a.body.data.id), status('active'));
    const page = await api.get('/v1/kubernetes/clusters?limit=1&page=2&sort=name');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta).toMatchObject({ page: 2, limit: 1 });
    expect(page.body.meta.total).toBeGreaterThanOrEqual(2);
    const inRegion = await api.get('/v1/kubernetes/clusters?region=eu-west-2&limit=100');
    expect(inRegion.body.data.map((c: { id: string }) => c.id)).toEqual([a.body.data.id]);
    const active = await api.get('/v1/kubernetes/clusters?status=active&limit=100');
    expect(active.body.data.length).toBeGreaterThanOrEqual(1);
    expect(active.body.data.every((c: { attributes: { status: string } }) => c.attributes.status === 'active')).toBe(true);
    expect((await api.get(`/v1/kubernetes/clusters?providerId=${metal}`)).body.data).toEqual([]);
    expect((await api.get(`/v1/kubernetes/clusters?providerId=${cloud}&limit=100`)).body.meta.total).toBe((await api.get('/v1/kubernetes/clusters?limit=100')).body.meta.total);
    expect((await api.get('/v1/kubernetes/clusters?status=weird')).status).toBe(400);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    // Each retry's backoff is passed on the server's clock rather than waited out.
    const job = (jobId: string, ok: (r: TestResponse) => boolean) => eventuallyRetrying(clock, () => api.get(`/v1/jobs/${jobId}`), ok);
    const flaky = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'flaky', tags: { simulate: 'fail:2' } });
    const done = await job(flaky.body.jobId, jobStatus('completed'));
    expect(done.body.data.attributes.attempts).toBe(3);
    await until(() => get(flaky.body.data.id), status('active'));

    const doomed = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'doomed', tags: { simulate: 'fail:always' } });
    await job(doomed.body.jobId, jobStatus('failed'));
    const broken = await until(() => get(doomed.body.data.id), status('error'));
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));
    expect((await api.post(`/v1/jobs/${doomed.body.jobId}/retry`)).status).toBe(200);
    expect((await get(doomed.body.data.id)).body.data.attributes.status).toBe('creating');
    await job(doomed.body.jobId, jobStatus('failed', 3));
    await until(() => get(doomed.body.data.id), status('error'));
    // A cluster in error may be deleted (204); the simulate tag fails its every operation, so the cluster.delete job fails too and leaves it in error.
    expect((await api.delete(`/v1/kubernetes/clusters/${doomed.body.data.id}`)).status).toBe(204);
    expect((await get(doomed.body.data.id)).body.data.attributes.status).toBe('deleting');
    const deleteJob = (r: { body: { data: Array<{ id: string; attributes: JobRetryView & { resourceId: string; type: string } }> } }) =>
      r.body.data.find((j) => j.attributes.resourceId === doomed.body.data.id && j.attributes.type === 'cluster.delete');
    await eventuallyRetrying(clock, () => api.get('/v1/jobs?limit=100'), (r) => deleteJob(r)?.attributes.status === 'failed' && deleteJob(r)?.attributes.attempts === 3, {
      jobOf: (r) => {
        const j = deleteJob(r);
        return j && { ...j.attributes, id: j.id };
      },
    });
    await until(() => get(doomed.body.data.id), status('error'));
  });

  if (profile === 'server') {
    it('publishes cluster events on cloud.kubernetes.events.v1', async () => {
      const res = await api.post('/v1/kubernetes/clusters', { ...cluster, name: 'relayed' });
      const subject = `cluster-${res.body.data.id}`;
      const topic = `${srv.env.KAFKA_TOPIC_PREFIX}.kubernetes.events.v1`;
      const kafka = new Kafka({ clientId: 'e2e-kubernetes', brokers: requireEngine('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: `e2e-kubernetes-${srv.env.KAFKA_TOPIC_PREFIX}` });
      const seen: Array<{ type: string; data: unknown }> = [];
      await until(() => get(res.body.data.id), status('active'));
      await waitForTopic(kafka, topic);
      await consumer.connect();
      try {
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run({
          eachMessage: async ({ message }) => {
            const ce = JSON.parse(message.value!.toString());
            if (ce.subject === subject) seen.push({ type: ce.type, data: ce.data });
          },
        });
        await until(async () => seen.map((e) => e.type), (types) => types.includes('kubernetes.ClusterOperationCompleted.v1'), 30000, 200);
      } finally {
        await consumer.disconnect();
      }
      expect(seen.map((e) => e.type)).toEqual(['kubernetes.ClusterRequested.v1', 'kubernetes.ClusterOperationCompleted.v1']);
      const token = parse((await api.get(`/v1/kubernetes/clusters/${res.body.data.id}/kubeconfig`)).text).users[0].user.token;
      expect(JSON.stringify(seen)).not.toContain(token);
    }, 90000);
  }
});
