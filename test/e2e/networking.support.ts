import type { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { eventually } from '../support/wait';
import type { TestServer } from '../support/test-server';

/** Shared steps of the networking e2e specs (test/e2e/networking-*.e2e.spec.ts). */
type Api = ReturnType<TestServer['as']>;
type Res = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

export const statusOf = (r: Res): string | undefined => r.body?.data?.attributes?.status;

/** Waits for the resource at `url` to reach `status`, and asserts it did. */
export async function until(api: Api, url: string, status: string): Promise<Res> {
  const r = await eventually(() => api.get(url), (x) => statusOf(x) === status);
  expect(statusOf(r)).toBe(status);
  return r;
}

/**
 * Waits for a job to reach `status` (with `attempts` when given), and asserts it did. With the
 * server's `clock`, each retry's backoff is passed on it instead of waited out.
 */
export async function jobUntil(api: Api, jobId: string, status: string, attempts?: number, clock?: ManualClock): Promise<Res> {
  const ok = (r: Res) => r.body.data?.attributes?.status === status && (attempts === undefined || r.body.data.attributes.attempts === attempts);
  const r = clock ? await eventuallyRetrying(clock, () => api.get(`/v1/jobs/${jobId}`), ok) : await eventually(() => api.get(`/v1/jobs/${jobId}`), ok, 20000);
  expect(r.body.data.attributes).toMatchObject({ status, ...(attempts === undefined ? {} : { attempts }) });
  return r;
}

/** An active instance of the public cloud provider. */
export async function activeInstance(api: Api, providerId: string, name: string, region = 'us-east-1'): Promise<string> {
  const res = await api.post('/v1/instances', { name, providerId, region, instanceType: 'pc-t3-medium' });
  expect(res.status).toBe(202);
  await until(api, `/v1/instances/${res.body.data.id}`, 'active');
  return res.body.data.id as string;
}

/** An active bare-metal server at `site`. */
export async function activeServer(api: Api, name: string, site = 'NYC'): Promise<string> {
  const res = await api.post('/v1/servers', { data: { type: 'servers', attributes: { name, hostname: `${name}.example.com`, site, plan: 'c3-medium-x86', operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' } } });
  expect(res.status).toBe(201);
  await until(api, `/v1/servers/${res.body.data.id}`, 'active');
  return res.body.data.id as string;
}

/** A second project's key: its resources and ours are invisible to each other. */
export async function strangerOf(srv: TestServer): Promise<Api> {
  const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `elsewhere-${Math.random().toString(36).slice(2, 8)}` });
  expect(other.status).toBe(201);
  return srv.as(other.body.included[0].attributes.key);
}

/**
 * DECISIONS 14's job lifecycle on a create: a provider failing twice then succeeding (3 attempts,
 * `final`), a provider always failing (`error` with a message, job failed), and a manual retry
 * putting the resource back in `creating` and running 3 more attempts. The retries' backoffs pass on
 * the server's `clock`.
 */
export async function failingCreates(api: Api, clock: ManualClock, path: string, bodies: Record<string, unknown> | ((n: number) => Record<string, unknown>), kind: string, query = ''): Promise<void> {
  const body = (n: number) => (typeof bodies === 'function' ? bodies(n) : bodies);
  const flaky = await api.post(`${path}${query}`, { ...body(1), tags: { simulate: 'fail:2' } });
  expect(flaky.status).toBe(202);
  expect((await api.get(`/v1/jobs/${flaky.body.jobId}`)).body.data.attributes.type).toBe(`${kind}.create`);
  await jobUntil(api, flaky.body.jobId, 'completed', 3, clock);
  await until(api, `${path}/${flaky.body.data.id}`, 'active');

  const doomed = await api.post(`${path}${query}`, { ...body(2), tags: { simulate: 'fail:always' } });
  expect(doomed.status).toBe(202);
  await jobUntil(api, doomed.body.jobId, 'failed', 3, clock);
  const broken = await until(api, `${path}/${doomed.body.data.id}`, 'error');
  expect(broken.body.data.attributes.errorMessage).toMatch(/Simulated failure/);
  const retried = await api.post(`/v1/jobs/${doomed.body.jobId}/retry`);
  expect(retried.status).toBe(200);
  expect(statusOf(await api.get(`${path}/${doomed.body.data.id}`))).toBe('creating');
  await jobUntil(api, doomed.body.jobId, 'failed', 3, clock);
  await until(api, `${path}/${doomed.body.data.id}`, 'error');
  // A resource in error can be deleted (its provider fails that too, so no further than `deleting`).
  const del = await api.delete(`${path}/${doomed.body.data.id}`);
  expect(del.status).toBe(202);
  expect(del.body.data.attributes.status).toBe('deleting');
}

/** Pagination and the `status`, `region` and `providerId` filters of a list, over resources the caller made. */
export async function listsAndFilters(api: Api, path: string, opts: { ids: string[]; region: string; otherRegion: string; providerId: string; otherProviderId: string }): Promise<void> {
  const page1 = await api.get(`${path}?limit=1&sort=createdAt`);
  expect(page1.status).toBe(200);
  expect(page1.body.data).toHaveLength(1);
  expect(page1.body.meta.total).toBeGreaterThanOrEqual(opts.ids.length);
  const page2 = await api.get(`${path}?limit=1&page=2&sort=createdAt`);
  expect(page2.body.data).toHaveLength(1);
  expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
  const ids = (r: Res) => r.body.data.map((x: { id: string }) => x.id);
  const active = await api.get(`${path}?status=active&region=${opts.region}&providerId=${opts.providerId}&limit=100`);
  expect(ids(active)).toEqual(expect.arrayContaining(opts.ids));
  expect(active.body.data.every((x: { attributes: { status: string; providerId: string } }) => x.attributes.status === 'active' && x.attributes.providerId === opts.providerId)).toBe(true);
  for (const q of [`status=deleting`, `region=${opts.otherRegion}`, `providerId=${opts.otherProviderId}`]) {
    const none = await api.get(`${path}?${q}&limit=100`);
    expect(none.status).toBe(200);
    expect(ids(none)).not.toEqual(expect.arrayContaining([opts.ids[0]]));
  }
  expect((await api.get(`${path}?status=bogus`)).status).toBe(400);
}
