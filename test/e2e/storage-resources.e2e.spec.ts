import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import type { TestResponse } from '../support/http-client';
import { until } from '../support/until';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
type Answer = { status: number; body: { data?: { attributes?: { status?: string } } } };
const status = (s: string) => (r: Answer) => r.body.data?.attributes?.status === s;
const jobStatus = (s: string, attempts?: number) => (r: { body: { data: { attributes: { status: string; attempts: number } } } }) =>
  r.body.data.attributes.status === s && (attempts === undefined || r.body.data.attributes.attempts === attempts);

/** What every job-backed storage resource must do: a failing then succeeding provider, a permanent failure into `error`, and a manual retry. */
async function failuresAndRetry(api: Api, clock: ManualClock, path: string, body: Record<string, unknown>, final: string, query = '') {
  // Each retry's backoff is passed on the server's clock rather than waited out.
  const job = (jobId: string, ok: (r: TestResponse) => boolean) => eventuallyRetrying(clock, () => api.get(`/v1/jobs/${jobId}`), ok);
  const flaky = await api.post(path + query, { ...body, name: `${String(body.name)}-flaky`, tags: { simulate: 'fail:2' } });
  expect(flaky.status).toBe(202);
  const done = await job(flaky.body.jobId, jobStatus('completed'));
  expect(done.body.data.attributes.attempts).toBe(3);
  await until(() => api.get(`${path}/${flaky.body.data.id}`), status(final));

  const doomed = await api.post(path + query, { ...body, name: `${String(body.name)}-doomed`, tags: { simulate: 'fail:always' } });
  await job(doomed.body.jobId, jobStatus('failed'));
  const broken = await until(() => api.get(`${path}/${doomed.body.data.id}`), status('error'));
  expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));
  expect((await api.post(`/v1/jobs/${doomed.body.jobId}/retry`)).status).toBe(200);
  expect((await api.get(`${path}/${doomed.body.data.id}`)).body.data.attributes.status).toBe('creating');
  await job(doomed.body.jobId, jobStatus('failed', 3));
  await until(() => api.get(`${path}/${doomed.body.data.id}`), status('error'));
  // A resource in error may be deleted; the simulate tag fails its every operation, so that job fails too and leaves it in error.
  const del = await api.delete(`${path}/${doomed.body.data.id}`);
  expect(del.status).toBe(202);
  await job(del.body.jobId, jobStatus('failed', 3));
  await until(() => api.get(`${path}/${doomed.body.data.id}`), status('error'));
}

/** Pagination and the status, region and provider filters of a list (`farId` is the only one in ap-northeast-1). */
async function listFilters(api: Api, path: string, farId: string, providerId: string) {
  const page = await api.get(`${path}?limit=1&page=2&sort=name`);
  expect(page.status).toBe(200);
  expect(page.body.data).toHaveLength(1);
  expect(page.body.meta).toMatchObject({ page: 2, limit: 1 });
  expect(page.body.meta.total).toBeGreaterThanOrEqual(2);
  expect((await api.get(`${path}?region=ap-northeast-1&limit=100`)).body.data.map((d: { id: string }) => d.id)).toEqual([farId]);
  const active = await api.get(`${path}?status=active&limit=100`);
  expect(active.body.data.length).toBeGreaterThanOrEqual(1);
  expect(active.body.data.every((d: { attributes: { status: string } }) => d.attributes.status === 'active')).toBe(true);
  const mine = await api.get(`${path}?providerId=${providerId}&limit=100`);
  expect(mine.body.data.length).toBeGreaterThanOrEqual(1);
  expect(mine.body.data.every((d: { attributes: { providerId: string } }) => d.attributes.providerId === providerId)).toBe(true);
  expect((await api.get(`${path}?providerId=no-such-provider`)).body.data).toEqual([]);
  expect((await api.get(`${path}?status=weird`)).status).toBe(400);
}

describe.each<Profile>(['embedded', 'server'])('storage: buckets, file systems and snapshots (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: Api;
  let stranger: Api;
  let strangerCloud: string;
  let cloud: string;
  let metal: string;

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-storage' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-metal' })).body.data.id;
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'storage elsewhere' });
    stranger = srv.as(other.body.included[0].attributes.key);
    strangerCloud = (await stranger.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-stranger' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  describe('object-storage buckets', () => {
    const path = '/v1/storage/object-storage/buckets';
    const get = (id: string) => api.get(`${path}/${id}`);

    it('creates a bucket as a job (202, bucket.create) with its endpoint from the provider', async () => {
      const res = await api.post(path, { name: 'app-logs', region: 'us-east-1' });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ type: 'buckets', attributes: { name: 'app-logs', region: 'us-east-1', status: 'creating', providerId: cloud, endpoint: null } });
      expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('bucket.create');
      const ready = await until(() => get(res.body.data.id), status('active'));
      expect(ready.body.data.attributes.endpoint).toMatch(/^https:\/\/app-logs\./);
    });

    it('refuses a name taken at the provider (409), even two at the same moment; another provider may use it; a deleted name is free again', async () => {
      const first = await api.post(path, { name: 'shared-name', region: 'us-east-1' });
      expect(first.status).toBe(202);
      const again = await api.post(path, { name: 'shared-name', region: 'eu-west-2' });
      expect(again.status).toBe(409);
      expect(again.body.errors[0]).toMatchObject({ code: 'CONFLICT', detail: expect.stringContaining('shared-name') });
      // Another project's provider has its own names.
      expect((await stranger.post(path, { name: 'shared-name', region: 'us-east-1' })).status).toBe(202);

      const answers = await Promise.all([api.post(path, { name: 'race-name', region: 'us-east-1' }), api.post(path, { name: 'race-name', region: 'us-east-1' })]);
      expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
      const winner = answers.find((r) => r.status === 202)!;
      const events = (await srv.platform.events.readStream(`bucket-${winner.body.data.id}`)).map((e) => e.type);
      expect(events.filter((t) => t === 'storage.BucketRequested.v1')).toHaveLength(1);

      await until(() => get(first.body.data.id), status('active'));
      const del = await api.delete(`${path}/${first.body.data.id}`);
      expect(del.status).toBe(202);
      expect(del.body.data.attributes.status).toBe('deleting');
      expect((await api.get(`/v1/jobs/${del.body.jobId}`)).body.data.attributes.type).toBe('bucket.delete');
      await until(() => get(first.body.data.id), (r) => r.status === 404);
      const reused = await api.post(path, { name: 'shared-name', region: 'eu-west-2' });
      expect(reused.status).toBe(202);
      expect(reused.body.data.attributes.region).toBe('eu-west-2');
      await until(() => get(reused.body.data.id), status('active'));
    });

    it('refuses names S3 refuses (400 on /name), unknown regions (422), providers without buckets (400), and hides other projects (404)', async () => {
      for (const name of ['ab', 'Upper-Case', 'under_score', '-dash-first', 'two..dots', '192.168.1.1', 'xn--punycode', 'x'.repeat(64)]) {
        const res = await api.post(path, { name, region: 'us-east-1' });
        expect(res.status).toBe(400);
        expect(res.body.errors[0].source.pointer).toBe('/name');
      }
      const region = await api.post(path, { name: 'fine-name', region: 'mars-1' });
      expect(region.status).toBe(422);
      expect(region.body.errors[0].code).toBe('INVALID_REGION');
      const unsupported = await api.post(`${path}?providerId=${metal}`, { name: 'fine-name', region: 'us-east-1' });
      expect(unsupported.status).toBe(400);
      expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
      const mine = await api.post(path, { name: 'mine-only', region: 'us-east-1' });
      expect((await stranger.get(`${path}/${mine.body.data.id}`)).status).toBe(404);
      expect((await stranger.delete(`${path}/${mine.body.data.id}`)).status).toBe(404);
      expect((await api.get(`${path}/${mine.body.data.id}?providerId=${metal}`)).status).toBe(404);
    });

    it('pages and filters the list by status, region and provider', async () => {
      const far = await api.post(path, { name: 'far-away', region: 'ap-northeast-1' });
      await until(() => get(far.body.data.id), status('active'));
      await listFilters(api, path, far.body.data.id, cloud);
      expect((await api.get(`${path}?providerId=${metal}`)).body.data).toEqual([]);
    });

    it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
      await failuresAndRetry(api, clock, path, { name: 'retried', region: 'us-east-1' }, 'active');
    });
  });

  describe('file systems', () => {
    const path = '/v1/storage/file-systems';
    const fs = { name: 'shared', sizeGb: 100, region: 'us-east-1' };
    const on = (providerId: string) => `${path}?providerId=${providerId}`;

    it('creates a file system as a job (202, file-system.create) with its mount target, deletes it (202, file-system.delete)', async () => {
      const res = await api.post(on(cloud), fs);
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ type: 'file-systems', attributes: { ...fs, status: 'creating', providerId: cloud, mountTarget: null } });
      expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('file-system.create');
      const id = res.body.data.id;
      const ready = await until(() => api.get(`${path}/${id}`), status('active'));
      expect(ready.body.data.attributes.mountTarget).toMatch(/:\/export$/);
      const del = await api.delete(`${path}/${id}`);
      expect(del.status).toBe(202);
      expect(del.body.data.attributes.status).toBe('deleting');
      expect((await api.get(`/v1/jobs/${del.body.jobId}`)).body.data.attributes.type).toBe('file-system.delete');
      await until(() => api.get(`${path}/${id}`), (r) => r.status === 404);
      // Bare metal offers file systems too.
      const onMetal = await api.post(on(metal), { ...fs, region: 'NYC' });
      expect(onMetal.status).toBe(202);
      await until(() => api.get(`${path}/${onMetal.body.data.id}`), status('active'));
    });

    it('refuses bad sizes (400 on /sizeGb), unknown regions (422), an ambiguous provider (400 on providerId), other projects (404)', async () => {
      for (const sizeGb of [0, 65537, 1.5, '10']) {
        const res = await api.post(on(cloud), { ...fs, sizeGb });
        expect(res.status).toBe(400);
        expect(res.body.errors[0].source.pointer).toBe('/sizeGb');
      }
      expect((await api.post(on(cloud), { ...fs, name: '' })).body.errors[0].source.pointer).toBe('/name');
      const region = await api.post(on(cloud), { ...fs, region: 'NYC' });
      expect(region.status).toBe(422);
      expect(region.body.errors[0].code).toBe('INVALID_REGION');
      // Two of the project's providers offer file systems: the create must name one.
      const ambiguous = await api.post(path, fs);
      expect(ambiguous.status).toBe(400);
      expect(ambiguous.body.errors[0].source.parameter).toBe('providerId');
      const mine = await api.post(on(cloud), fs);
      expect((await stranger.get(`${path}/${mine.body.data.id}`)).status).toBe(404);
      expect((await stranger.delete(`${path}/${mine.body.data.id}`)).status).toBe(404);
      expect((await api.delete(`${path}/${mine.body.data.id}?providerId=${metal}`)).status).toBe(404);
    });

    it('pages and filters the list by status, region and provider', async () => {
      const far = await api.post(on(cloud), { ...fs, name: 'far', region: 'ap-northeast-1' });
      await until(() => api.get(`${path}/${far.body.data.id}`), status('active'));
      await listFilters(api, path, far.body.data.id, cloud);
      const onMetal = (await api.get(`${path}?providerId=${metal}&limit=100`)).body.data;
      expect(onMetal.length).toBeGreaterThanOrEqual(1);
      expect(onMetal.every((d: { attributes: { providerId: string } }) => d.attributes.providerId === metal)).toBe(true);
    });

    it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
      await failuresAndRetry(api, clock, path, { ...fs, name: 'retried' }, 'active', `?providerId=${cloud}`);
    });
  });

  describe('snapshots (records only)', () => {
    const path = '/v1/storage/snapshots';
    let volumeId: string;

    beforeAll(async () => {
      const volume = await api.post('/v1/storage/volumes', { name: 'source', sizeGb: 50, region: 'us-east-1' });
      volumeId = volume.body.data.id;
      await until(() => api.get(`/v1/storage/volumes/${volumeId}`), status('available'));
    });

    it('registers a snapshot of a project volume (201, available, the volume\'s region, the provider id) and lists it', async () => {
      const res = await api.post(`${path}/db`, { volumeId, name: 'nightly', sizeGb: 20, externalId: 'snap-0abc' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ type: 'snapshots', attributes: { volumeId, name: 'nightly', sizeGb: 20, region: 'us-east-1', status: 'available', providerId: cloud, externalId: 'snap-0abc' } });
      const listed = await api.get(`${path}?limit=100`);
      const item = listed.body.data.find((s: { id: string }) => s.id === res.body.data.id);
      expect(item.attributes).toMatchObject({ name: 'nightly', status: 'available' });
      expect(item.attributes.externalId).toBeUndefined();
      const records = await api.get(`${path}/db?limit=100`);
      expect(records.body.data.find((s: { id: string }) => s.id === res.body.data.id).attributes.externalId).toBe('snap-0abc');
      expect((await api.get(`${path}?region=us-east-1&status=available&providerId=${cloud}&limit=100`)).body.data.map((s: { id: string }) => s.id)).toContain(res.body.data.id);
      expect((await api.get(`${path}?region=eu-west-2&limit=100`)).body.data).toEqual([]);
      expect((await stranger.get(`${path}?limit=100`)).body.data).toEqual([]);
      expect((await stranger.get(`${path}/db?limit=100`)).body.data).toEqual([]);
    });

    it('are never made or deleted through the API: no create, no delete route', async () => {
      const create = await api.post(path, { volumeId, name: 'manual', sizeGb: 20 });
      expect(create.status).toBe(405);
      const registered = await api.post(`${path}/db`, { volumeId, name: 'keep', sizeGb: 20, externalId: 'snap-keep' });
      expect((await api.delete(`${path}/${registered.body.data.id}`)).status).toBe(404);
      expect((await api.get(`${path}?limit=100`)).body.data.map((s: { id: string }) => s.id)).toContain(registered.body.data.id);
      // No job was ever made for a snapshot.
      const jobs = await api.get('/v1/jobs?limit=100');
      expect(jobs.body.data.some((j: { attributes: { type: string } }) => j.attributes.type.startsWith('snapshot.'))).toBe(false);
    });

    it('validates a record like a create: the volume must be the project\'s (404 on the field), fields 400, providers without snapshots 400', async () => {
      const foreignVolume = await stranger.post('/v1/storage/volumes', { name: 'theirs', sizeGb: 10, region: 'us-east-1' });
      const foreign = await api.post(`${path}/db`, { volumeId: foreignVolume.body.data.id, name: 'x', sizeGb: 5, externalId: 'snap-x' });
      expect(foreign.status).toBe(404);
      expect(foreign.body.errors[0].source.pointer).toBe('/volumeId');
      expect((await api.post(`${path}/db`, { volumeId: 'no-such-volume', name: 'x', sizeGb: 5, externalId: 'snap-x' })).status).toBe(404);
      const noId = await api.post(`${path}/db`, { volumeId, name: 'x', sizeGb: 5 });
      expect(noId.status).toBe(400);
      expect(noId.body.errors[0].source.pointer).toBe('/externalId');
      const size = await api.post(`${path}/db`, { volumeId, name: 'x', sizeGb: 0, externalId: 'snap-x' });
      expect(size.status).toBe(400);
      expect(size.body.errors[0].source.pointer).toBe('/sizeGb');
      const unsupported = await api.post(`${path}/db?providerId=${metal}`, { volumeId, name: 'x', sizeGb: 5, externalId: 'snap-x' });
      expect(unsupported.status).toBe(400);
      expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
      expect(strangerCloud).toEqual(expect.any(String));
    });
  });
});
