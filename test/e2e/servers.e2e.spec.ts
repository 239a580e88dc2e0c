import { ManualClock } from '../../libs/runtime/src/clock';
import { eventuallyRetrying } from '../support/job-retries';
import { eventually } from '../support/wait';
import { ed25519Key } from '../support/ssh-keys';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';


type Res = { status: number; body: any };
const statusOf = (r: Res) => r.body.data.attributes.status;

describe.each<Profile>(['embedded', 'server'])('servers and backups end to end (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let providerId: string;
  const bareMetal = { name: 'db-1', hostname: 'db-1.example.com', site: 'NYC', plan: 'c3-medium-x86', operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' };
  const jsonApi = (attributes: Record<string, unknown>) => ({ data: { type: 'servers', attributes } });

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
  const server = (id: string) => api.get(`/v1/servers/${id}`);
  const act = (id: string, action: string) => api.post(`/v1/servers/${id}/actions`, { data: { type: 'actions', attributes: { action } } });
  const until = (id: string, status: string) => eventually(() => server(id), (r) => statusOf(r) === status);
  const createActive = async (overrides: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/servers', jsonApi({ ...bareMetal, ...overrides }));
    expect(res.status).toBe(201);
    expect(statusOf(await until(res.body.data.id, 'active'))).toBe('active');
    return res.body.data.id as string;
  };

  it('creates (201, creating) and the server.create job takes it through installing to active', async () => {
    const res = await api.post('/v1/servers', jsonApi({ ...bareMetal, tags: [{ key: 'team', value: 'db' }, { key: 'env', value: 'prod' }] }));
    expect(res.status).toBe(201);
    expect(res.body.jobId).toEqual(expect.any(String));
    expect(res.body.data.type).toBe('servers');
    expect(res.body.data.attributes).toMatchObject({ hostname: 'db-1.example.com', label: 'db-1', status: 'creating', role: 'BareMetal', site: 'NYC', locked: false, billing: 'hourly', jobId: res.body.jobId });
    expect(res.body.data.attributes.plan.slug).toBe('c3-medium-x86');
    expect(res.body.data.attributes.tags).toEqual([{ key: 'env', value: 'prod' }, { key: 'team', value: 'db' }]);
    const id = res.body.data.id;
    expect((await job(res.body.jobId)).body.data.attributes).toMatchObject({ type: 'server.create', maxAttempts: 3 });

    const done = await eventually(() => job(res.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    expect(done.body.data.attributes).toMatchObject({ status: 'completed', attempts: 1, error: null });
    const active = await until(id, 'active');
    expect(active.body.data.attributes.status).toBe('active');
    expect(active.body.data.attributes.primaryIpv4).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(active.body.data.attributes.ipmiStatus).toBe('on');
    const history = (await srv.platform.events.readStream(`server-${id}`)).map((e) => e.type);
    expect(history).toEqual(['compute.ServerRequested.v1', 'compute.ServerInstallStarted.v1', 'compute.ServerActivated.v1']);

    const listed = await api.get('/v1/servers?sort=hostname&fields[servers]=hostname,status');
    expect(listed.status).toBe(200);
    const mine = listed.body.data.find((d: { id: string }) => d.id === id);
    expect(mine.attributes).toEqual({ hostname: 'db-1.example.com', status: 'active' });
    expect(listed.body.meta).toMatchObject({ page: 1, total: expect.any(Number) });
    for (const sort of ['createdAt', '-status', 'site']) expect((await api.get(`/v1/servers?sort=${sort}`)).status).toBe(200);
    expect((await api.get('/v1/servers?sort=bogus')).status).toBe(400);
  });

  it('accepts a flat body and creates a VirtualMachine at the project provider', async () => {
    const res = await api.post('/v1/servers', { name: 'vm-1', hostname: 'vm-1', site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'monthly', role: 'VirtualMachine', provider: providerId });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ role: 'VirtualMachine', provider: providerId, billing: 'monthly', ipmiStatus: 'not_applicable' });
    expect(statusOf(await until(res.body.data.id, 'active'))).toBe('active');
  });

  it('injects only SSH keys of the project (and of the named provider)', async () => {
    const key = await api.post(`/v1/ssh-keys?providerId=${encodeURIComponent(providerId)}`, { name: 'ops', publicKey: ed25519Key() });
    expect(key.status).toBe(201);
    const vm = { name: 'vm-keys', hostname: 'vm-keys', site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'monthly', role: 'VirtualMachine', provider: providerId };
    const ok = await api.post('/v1/servers', { ...vm, ssh_keys: [key.body.data.id] });
    expect(ok.status).toBe(201);
    const unknown = await api.post('/v1/servers', { ...vm, ssh_keys: [key.body.data.id, 'no-such-key'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual(['/ssh_keys/1']);
    // Another project's key is unknown here too.
    const created = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `keys-elsewhere-${profile}` });
    const otherProject = srv.as(created.body.included[0].attributes.key);
    const otherProvider = (await otherProject.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-other' })).body.data.id;
    const foreign = (await otherProject.post(`/v1/ssh-keys?providerId=${encodeURIComponent(otherProvider)}`, { name: 'theirs', publicKey: ed25519Key() })).body.data.id;
    const refused = await api.post('/v1/servers', jsonApi({ ...bareMetal, ssh_keys: [foreign] }));
    expect([refused.status, refused.body.errors[0].source.pointer]).toEqual([400, '/data/attributes/ssh_keys/0']);
  });

  it('runs power_off, power_on and reboot through their lifecycles and refuses wrong-status actions', async () => {
    const id = await createActive({ hostname: 'power.example.com' });
    const wrong = await act(id, 'power_on');
    expect(wrong.status).toBe(409);
    expect(wrong.body.errors[0]).toMatchObject({ code: 'INVALID_STATE' });
    expect(wrong.body.errors[0].detail).toContain('active');

    const off = await act(id, 'power_off');
    expect(off.status).toBe(202);
    expect(off.body.jobId).toEqual(expect.any(String));
    expect(statusOf(off)).toBe('stopping');
    expect((await job(off.body.jobId)).body.data.attributes.type).toBe('server.action');
    expect(statusOf(await until(id, 'stopped'))).toBe('stopped');
    expect((await act(id, 'reboot')).status).toBe(409);
    expect((await act(id, 'power_off')).status).toBe(409);

    const on = await api.post(`/v1/servers/${id}/actions`, { action: 'power_on' });
    expect(on.status).toBe(202);
    expect(statusOf(on)).toBe('starting');
    expect(statusOf(await until(id, 'active'))).toBe('active');

    const reboot = await act(id, 'reboot');
    expect(reboot.status).toBe(202);
    expect(statusOf(reboot)).toBe('restarted');
    await eventually(() => job(reboot.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    // The servers read model follows its own subscription: it may show the reboot a moment after the job.
    const after = await until(id, 'active');
    expect(statusOf(after)).toBe('active');
    expect(after.body.data.attributes.jobId).toBe(reboot.body.jobId);
    expect((await act(id, 'explode')).status).toBe(400);
  });

  it('a locked server refuses actions, PATCH of anything but locked, and DELETE; unlocking works', async () => {
    const id = await createActive({ hostname: 'locked.example.com' });
    const locked = await api.patch(`/v1/servers/${id}`, { data: { type: 'servers', attributes: { locked: true } } });
    expect(locked.status).toBe(200);
    expect(locked.body.data.attributes.locked).toBe(true);
    for (const res of [await act(id, 'power_off'), await api.patch(`/v1/servers/${id}`, { label: 'x' }), await api.patch(`/v1/servers/${id}`, { label: 'x', locked: false }), await api.delete(`/v1/servers/${id}`)]) {
      expect(res.status).toBe(409);
      expect(res.body.errors[0].code).toBe('INVALID_STATE');
    }
    expect((await server(id)).body.data.attributes).toMatchObject({ status: 'active', label: 'db-1', locked: true });

    const unlocked = await api.patch(`/v1/servers/${id}`, { locked: false });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.data.attributes.locked).toBe(false);
    const relabeled = await api.patch(`/v1/servers/${id}`, { label: 'primary', tags: { role: 'db' } });
    expect(relabeled.body.data.attributes).toMatchObject({ label: 'primary', tags: [{ key: 'role', value: 'db' }] });
    expect((await act(id, 'power_off')).status).toBe(202);
  });

  it('PATCH with a new plan migrates the server through a job; DELETE terminates it and it stays readable', async () => {
    const id = await createActive({ hostname: 'migrate.example.com' });
    const same = await api.patch(`/v1/servers/${id}`, { plan: 'c3-medium-x86' });
    expect(same.status).toBe(200);
    expect(same.body.jobId).toBeUndefined();
    expect(statusOf(same)).toBe('active');
    expect((await api.patch(`/v1/servers/${id}`, { plan: 'nope' })).body.errors[0].code).toBe('INVALID_PLAN');

    const moved = await api.patch(`/v1/servers/${id}`, { plan: 'm3-large-x86' });
    expect(moved.status).toBe(200);
    expect(statusOf(moved)).toBe('migrating');
    expect(moved.body.data.attributes.plan.slug).toBe('m3-large-x86');
    expect(moved.body.jobId).toEqual(expect.any(String));
    expect((await job(moved.body.jobId)).body.data.attributes).toMatchObject({ type: 'server.action' });
    // The server turns active before its job records completion: wait for each, not for one then the other.
    const migrated = await eventually(() => job(moved.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    expect(migrated.body.data.attributes).toMatchObject({ status: 'completed', error: null });
    expect(statusOf(await until(id, 'active'))).toBe('active');

    const del = await api.delete(`/v1/servers/${id}`);
    expect(del.status).toBe(204);
    expect(['deleting', 'terminated']).toContain(statusOf(await server(id)));
    const gone = await until(id, 'terminated');
    expect(statusOf(gone)).toBe('terminated');
    expect(gone.body.data.attributes.deletedAt).toEqual(expect.any(String));
    expect((await api.get('/v1/servers?limit=100')).body.data.map((d: { id: string }) => d.id)).not.toContain(id);
    expect((await api.get('/v1/servers?status=terminated&limit=100')).body.data.map((d: { id: string }) => d.id)).toContain(id);
    const unknownStatus = await api.get('/v1/servers?status=bogus');
    expect([unknownStatus.status, unknownStatus.body.errors[0].code]).toEqual([400, 'INVALID_QUERY']);
    const again = await api.delete(`/v1/servers/${id}`);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('INVALID_STATE');
    expect((await act(id, 'power_on')).status).toBe(409);
  });

  it('creates, lists, restores (once) and deletes backups', async () => {
    const id = await createActive({ hostname: 'backed.example.com', plan: 'm3-large-x86' });
    const created = await api.post(`/v1/servers/${id}/backups`, { data: { type: 'backups', attributes: { name: 'nightly' } } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ type: 'backups', attributes: { name: 'nightly', serverId: id, status: 'available' } });
    const second = await api.post(`/v1/servers/${id}/backups`, { name: 'weekly' });
    expect(second.status).toBe(201);
    const listed = await api.get(`/v1/servers/${id}/backups?sort=name`);
    expect(listed.body.data.map((b: { attributes: { name: string } }) => b.attributes.name)).toEqual(['nightly', 'weekly']);
    const byStatus = await api.get(`/v1/servers/${id}/backups?sort=-status,name`);
    expect([byStatus.status, byStatus.body.data.length]).toEqual([200, 2]);
    expect((await api.post(`/v1/servers/${id}/backups`, { data: { type: 'backups', attributes: { name: '' } } })).status).toBe(400);

    const restored = await api.post(`/v1/backups/${created.body.data.id}/restore`);
    expect(restored.status).toBe(201);
    expect(restored.body.data.id).not.toBe(id);
    expect(restored.body.data.attributes).toMatchObject({ status: 'creating', hostname: 'backed.example.com', restoredFromBackup: created.body.data.id });
    expect(restored.body.data.attributes.plan.slug).toBe('m3-large-x86');
    expect(statusOf(await until(restored.body.data.id, 'active'))).toBe('active');
    expect((await api.post(`/v1/backups/${created.body.data.id}/restore`)).status).toBe(404);
    expect((await api.get(`/v1/backups/${created.body.data.id}`)).status).toBe(404);
    expect((await api.get(`/v1/servers/${id}/backups`)).body.data.map((b: { id: string }) => b.id)).toEqual([second.body.data.id]);

    expect((await api.get(`/v1/backups/${second.body.data.id}`)).status).toBe(200);
    expect((await api.delete(`/v1/backups/${second.body.data.id}`)).status).toBe(204);
    expect((await api.get(`/v1/backups/${second.body.data.id}`)).status).toBe(404);
    expect((await api.post(`/v1/backups/${second.body.data.id}/restore`)).status).toBe(404);
    expect((await api.delete(`/v1/backups/${second.body.data.id}`)).status).toBe(404);
    expect((await api.get(`/v1/servers/${id}/backups`)).body.data).toEqual([]);
  });

  it('serves the same backup resource keyed by an instance id', async () => {
    const inst = await api.post('/v1/instances', { name: 'inst-b', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' });
    expect(inst.status).toBe(202);
    const instanceId = inst.body.data.id;
    const b = await api.post(`/v1/instances/${instanceId}/backups`, { data: { type: 'backups', attributes: { name: 'snap' } } });
    expect(b.status).toBe(201);
    expect(b.body.data.attributes).toMatchObject({ name: 'snap', instanceId, serverId: null });
    expect((await api.get(`/v1/instances/${instanceId}/backups`)).body.data.map((x: { id: string }) => x.id)).toEqual([b.body.data.id]);
    expect((await api.get(`/v1/backups/${b.body.data.id}`)).body.data.attributes.instanceId).toBe(instanceId);
    expect((await api.get('/v1/instances/00000000-0000-0000-0000-000000000000/backups')).status).toBe(404);
  });

  it('validates bodies (400 pointers) and the catalog (422 codes)', async () => {
    const bad = await api.post('/v1/servers', jsonApi({ ...bareMetal, name: '', billing: 'weekly' }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/data/attributes/billing', '/data/attributes/name']);
    const flat = await api.post('/v1/servers', { hostname: 'x', site: 'NYC', plan: 'c3-medium-x86', operating_system: 'debian_12', billing: 'hourly' });
    expect(flat.status).toBe(400);
    expect(flat.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual(['/name']);
    const noProvider = await api.post('/v1/servers', { ...bareMetal, role: 'VirtualMachine', site: 'us-east-1', plan: 'pc-t3-medium' });
    expect(noProvider.status).toBe(400);
    expect(noProvider.body.errors[0].source.pointer).toBe('/provider');
    const wrongType = await api.post('/v1/servers', { data: { type: 'instances', attributes: bareMetal } });
    expect(wrongType.status).toBe(400);

    const site = await api.post('/v1/servers', jsonApi({ ...bareMetal, site: 'MARS' }));
    expect(site.status).toBe(422);
    expect(site.body.errors[0]).toMatchObject({ code: 'INVALID_REGION', detail: 'Unknown region/site: MARS' });
    const plan = await api.post('/v1/servers', jsonApi({ ...bareMetal, plan: 'huge' }));
    expect(plan.status).toBe(422);
    expect(plan.body.errors[0].code).toBe('INVALID_PLAN');
    expect((await api.post('/v1/servers', jsonApi({ ...bareMetal, site: 'LOS', plan: 'm3-xlarge-x86' }))).body.errors[0].code).toBe('INVALID_PLAN');
    const os = await api.post('/v1/servers', jsonApi({ ...bareMetal, operating_system: 'plan9' }));
    expect(os.status).toBe(422);
    expect(os.body.errors[0].code).toBe('INVALID_OS');
    // The OS must be one the plan's provider offers for the plan's category.
    const gpuWindows = await api.post('/v1/servers', jsonApi({ ...bareMetal, plan: 'g3-a100-x8', operating_system: 'windows_2022' }));
    expect([gpuWindows.status, gpuWindows.body.errors[0].code]).toEqual([422, 'INVALID_OS']);
    const vmFlatcar = await api.post('/v1/servers', { ...bareMetal, role: 'VirtualMachine', site: 'us-east-1', plan: 'pc-t3-medium', provider: providerId, operating_system: 'flatcar_stable' });
    expect([vmFlatcar.status, vmFlatcar.body.errors[0].code]).toEqual([422, 'INVALID_OS']);
    const provider = await api.post('/v1/servers', { ...bareMetal, role: 'VirtualMachine', site: 'us-east-1', plan: 'pc-t3-medium', provider: 'nope' });
    expect(provider.status).toBe(404);
    expect(provider.body.errors[0].code).toBe('PROVIDER_NOT_FOUND');
    // A named provider is checked for bare metal too, the role must match the plan, and a VM needs a provider.
    const bmProvider = await api.post('/v1/servers', jsonApi({ ...bareMetal, provider: 'nope' }));
    expect([bmProvider.status, bmProvider.body.errors[0].code]).toEqual([404, 'PROVIDER_NOT_FOUND']);
    const wrongKind = await api.post('/v1/servers', jsonApi({ ...bareMetal, provider: providerId }));
    expect([wrongKind.status, wrongKind.body.errors[0].code]).toEqual([422, 'INVALID_PLAN']);
    const roleMismatch = await api.post('/v1/servers', jsonApi({ ...bareMetal, role: 'VirtualMachine', provider: providerId }));
    expect([roleMismatch.status, roleMismatch.body.errors[0].code]).toEqual([422, 'INVALID_PLAN']);
    expect(roleMismatch.body.errors[0].detail).toContain('BareMetal plan');
    // A VM plan makes a VirtualMachine even without role, so it needs a provider as well.
    const vmNoProvider = await api.post('/v1/servers', jsonApi({ ...bareMetal, site: 'us-east-1', plan: 'pc-t3-medium' }));
    expect(vmNoProvider.status).toBe(400);
    expect(vmNoProvider.body.errors[0].source).toEqual({ pointer: '/data/attributes/provider' });
  });

  it('hides servers and backups of other projects', async () => {
    const id = await createActive({ hostname: 'private.example.com' });
    const backup = await api.post(`/v1/servers/${id}/backups`, { name: 'mine' });
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `other-servers-${profile}` });
    const stranger = srv.as(other.body.included[0].attributes.key);
    expect((await stranger.get(`/v1/servers/${id}`)).status).toBe(404);
    expect((await stranger.post(`/v1/servers/${id}/actions`, { action: 'power_off' })).status).toBe(404);
    expect((await stranger.patch(`/v1/servers/${id}`, { label: 'hijack' })).status).toBe(404);
    expect((await stranger.delete(`/v1/servers/${id}`)).status).toBe(404);
    expect((await stranger.get(`/v1/servers/${id}/backups`)).status).toBe(404);
    expect((await stranger.post(`/v1/backups/${backup.body.data.id}/restore`)).status).toBe(404);
    expect((await stranger.delete(`/v1/backups/${backup.body.data.id}`)).status).toBe(404);
    expect((await stranger.get('/v1/servers')).body.data).toEqual([]);
    expect((await server(id)).body.data.attributes.label).toBe('db-1');
  });

  it('retries a failing provider twice and completes on the third attempt', async () => {
    const res = await api.post('/v1/servers', jsonApi({ ...bareMetal, hostname: 'flaky.example.com', tags: [{ key: 'simulate', value: 'fail:2' }] }));
    expect(res.status).toBe(201);
    const done = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'completed');
    expect(done.body.data.attributes).toMatchObject({ status: 'completed', attempts: 3 });
    expect(statusOf(await until(res.body.data.id, 'active'))).toBe('active');
    const failures = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).filter((e) => e.type === 'jobs.JobAttemptFailed.v1');
    const gap = (i: number) => Date.parse(failures[i].data.retryAt as string) - Date.parse(failures[i].data.failedAt as string);
    expect([gap(0), gap(1)]).toEqual([1000, 2000]);
  });

  it('fails for good (server error), and a manual retry takes the server back through its operation', async () => {
    const res = await api.post('/v1/servers', jsonApi({ ...bareMetal, hostname: 'doomed.example.com', tags: { simulate: 'fail:always' } }));
    const failed = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'failed');
    expect(failed.body.data.attributes).toMatchObject({ status: 'failed', attempts: 3 });
    const broken = await until(res.body.data.id, 'error');
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));

    const retried = await api.post(`/v1/jobs/${res.body.jobId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual({ jobId: res.body.jobId, status: 'retrying' });
    // The retry itself resets the server (the executor may already have moved creating → installing).
    const reset = await server(res.body.data.id);
    expect(['creating', 'installing']).toContain(statusOf(reset));
    expect(reset.body.data.attributes.errorMessage).toBeNull();
    const again = await eventuallyRetrying(clock, () => job(res.body.jobId), (r) => r.body.data.attributes.status === 'failed' && r.body.data.attributes.attempts === 3);
    expect(again.body.data.attributes.status).toBe('failed');
    const serverEvents = await srv.platform.events.readStream(`server-${res.body.data.id}`);
    const history = serverEvents.map((e) => e.type);
    expect(history.filter((t) => t === 'compute.ServerOperationRetried.v1')).toHaveLength(1);
    expect(history.filter((t) => t === 'compute.ServerInstallStarted.v1')).toHaveLength(2);
    expect(serverEvents.find((e) => e.type === 'compute.ServerOperationRetried.v1')!.data).toMatchObject({ jobId: res.body.jobId, operation: 'create', status: 'creating' });
    // Recorded by the retry request, before the executor began the job's next round of attempts.
    const starts = (await srv.platform.events.readStream(`job-${res.body.jobId}`)).filter((e) => e.type === 'jobs.JobAttemptStarted.v1');
    expect(starts).toHaveLength(6);
    expect(serverEvents.find((e) => e.type === 'compute.ServerOperationRetried.v1')!.position).toBeLessThan(starts[3].position);
    expect(statusOf(await until(res.body.data.id, 'error'))).toBe('error');
  }, 30000);

  it('a manual retry of a failed power_off puts the server back in stopping at once, and can then succeed', async () => {
    const id = await createActive({ hostname: 'retry-off.example.com' });
    expect((await api.patch(`/v1/servers/${id}`, { tags: { simulate: 'fail:always' } })).status).toBe(200);
    const off = await act(id, 'power_off');
    expect(off.status).toBe(202);
    const jobId = off.body.jobId as string;
    const failed = await eventuallyRetrying(clock, () => job(jobId), (r) => r.body.data.attributes.status === 'failed');
    expect(failed.body.data.attributes).toMatchObject({ status: 'failed', attempts: 3 });
    const broken = await until(id, 'error');
    expect(broken.body.data.attributes.errorMessage).toEqual(expect.any(String));

    // The provider recovers, slowly enough that the reset is observable before the attempt ends.
    expect((await api.patch(`/v1/servers/${id}`, { tags: { simulate: 'slow:1500' } })).status).toBe(200);
    expect(statusOf(await server(id))).toBe('error');
    const retried = await api.post(`/v1/jobs/${jobId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual({ jobId, status: 'retrying' });
    const reset = await server(id);
    expect(reset.body.data.attributes).toMatchObject({ status: 'stopping', errorMessage: null, jobId });

    const done = await eventually(() => job(jobId), (r) => r.body.data.attributes.status === 'completed', 20000);
    expect(done.body.data.attributes).toMatchObject({ status: 'completed', attempts: 1, error: null });
    expect(statusOf(await until(id, 'stopped'))).toBe('stopped');
    const history = (await srv.platform.events.readStream(`server-${id}`)).map((e) => e.type);
    expect(history.slice(-4)).toEqual(['compute.ServerOperationFailed.v1', 'compute.ServerUpdated.v1', 'compute.ServerOperationRetried.v1', 'compute.ServerPoweredOff.v1']);
  }, 30000);

  it('replays an idempotent create and action', async () => {
    const headers = { 'Idempotency-Key': `server-create-${profile}` };
    const a = await api.post('/v1/servers', jsonApi({ ...bareMetal, hostname: 'once.example.com' }), headers);
    const b = await api.post('/v1/servers', jsonApi({ ...bareMetal, hostname: 'once.example.com' }), headers);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body.data.id).toBe(a.body.data.id);
    const named = (await api.get('/v1/servers?limit=100')).body.data.filter((d: { attributes: { hostname: string } }) => d.attributes.hostname === 'once.example.com');
    expect(named).toHaveLength(1);

    await until(a.body.data.id, 'active');
    const actionHeaders = { 'Idempotency-Key': `server-action-${profile}` };
    const off1 = await api.post(`/v1/servers/${a.body.data.id}/actions`, { action: 'power_off' }, actionHeaders);
    const off2 = await api.post(`/v1/servers/${a.body.data.id}/actions`, { action: 'power_off' }, actionHeaders);
    expect(off1.status).toBe(202);
    expect(off2.status).toBe(202);
    expect(off2.headers['idempotent-replayed']).toBe('true');
    expect(off2.body.jobId).toBe(off1.body.jobId);
  });
});
