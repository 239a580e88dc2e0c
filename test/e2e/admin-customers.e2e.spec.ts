import { projectStream } from '../../libs/domain/identity/events';
import { instanceStream } from '../../libs/domain/compute/instance.events';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { jobsProjection } from '../../projections/jobs/jobs.projection';
import { serversProjection } from '../../projections/servers/servers.projection';
import { serverStream } from '../../libs/domain/servers/server.events';
import { volumesProjection } from '../../projections/volumes/volumes.projection';
import { volumeStream } from '../../libs/domain/storage/volume.resource';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import Stripe from 'stripe';
import { ManualClock } from '../../libs/runtime/src/clock';
import { client } from '../support/http-client';
import { eventuallyRetrying } from '../support/job-retries';
import { eventually } from '../support/wait';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
const STRIPE_WEBHOOK_SECRET = 'whsec_admin_analytics_0123456789';
const stripe = new Stripe('sk_test_123');
const ISSUER = 'https://idp.admin.test/';

describe.each<Profile>(['embedded', 'server'])('admin customers: suspend, reactivate, close (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let admin: Api;
  let acme: Api;
  let other: Api;
  /** The other project's first key: a test key, whose resources the analytics count apart. */
  let otherTest: Api;
  let acmeId: string;
  let otherId: string;
  let instanceId: string;
  let serverId: string;
  let signingKey: KeyLike;
  /** A member of acme signed in through the identity provider (its registered owner, by email). */
  let member: Api;

  const newProject = async (name: string) => {
    const created = await admin.post('/v1/admin/projects', { name });
    expect(created.status).toBe(201);
    // The project's first key is a test key; the customer's real (billed, administered) resources are live (DECISIONS 21).
    const live = await srv.as(created.body.included[0].attributes.key).post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    expect(live.status).toBe(201);
    return { id: created.body.data.id as string, api: srv.as(live.body.data.attributes.key), testApi: srv.as(created.body.included[0].attributes.key) };
  };

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    signingKey = privateKey;
    const jwksFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'admin-jwks-')), 'jwks.json');
    fs.writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }));
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero', STRIPE_WEBHOOK_SECRET, JWT_ISSUER: ISSUER, JWT_JWKS_FILE: jwksFile }, { clock });
    admin = srv.as(srv.bootstrap.adminKey);
    ({ id: acmeId, api: acme } = await newProject('acme'));
    ({ id: otherId, api: other, testApi: otherTest } = await newProject('other'));
    expect((await acme.post('/v1/iam/team/members', { email: 'Owner@Acme.test', role: 'owner' })).status).toBe(201);
    expect((await acme.post('/v1/billing/wallets/USD/credit', { amountCents: 2500 })).status).toBe(200);
    const token = await new SignJWT({ project: acmeId, email: 'Owner@Acme.test', role: 'owner' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setSubject('owner-1').setIssuedAt().setExpirationTime('1h').sign(signingKey);
    member = client(srv.url, { Authorization: `Bearer ${token}` });
    expect((await member.get('/v1/instances')).status).toBe(200);
    const provider = await acme.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-123' });
    expect(provider.status).toBe(201);
    const created = await acme.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'web-1', providerId: provider.body.data.id });
    expect(created.status).toBe(202);
    instanceId = created.body.data.id;
    const server = await acme.post('/v1/servers', { data: { type: 'servers', attributes: { name: 'db-1', hostname: 'db-1.example.com', site: 'NYC', plan: 'c3-medium-x86', operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' } } });
    expect(server.status).toBe(201);
    serverId = server.body.data.id;
    await eventually(() => acme.get(`/v1/instances/${instanceId}`), (r) => r.body.data.attributes.status === 'active');
    await eventually(() => acme.get(`/v1/servers/${serverId}`), (r) => r.body.data.attributes.status === 'active');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('lists customers (paginated, filtered by status) and gets one; a project key gets 403 on every admin route', async () => {
    const listed = await admin.get('/v1/admin/customers?sort=createdAt&limit=2');
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(listed.body.links.next).toContain('page=2');
    const got = await admin.get(`/v1/admin/customers/${acmeId}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: acmeId, type: 'customers', attributes: { name: 'acme', status: 'active', kyc: { status: 'none', requestId: null }, ownerEmail: 'Owner@Acme.test', balances: [{ currency: 'USD', amountCents: 2500 }], createdBy: expect.stringMatching(/^admin:/) } });
    expect((await admin.get(`/v1/admin/customers/${otherId}`)).body.data.attributes).toMatchObject({ ownerEmail: null, balances: [] });
    expect(listed.body.data[0].attributes).toMatchObject({ name: 'default', createdBy: 'system:bootstrap' });
    expect((await admin.get('/v1/admin/customers?sort=createdAt&page=2&limit=2')).body.data[0].attributes).toMatchObject({ name: 'other', ownerEmail: null });
    expect((await admin.get('/v1/admin/customers/nope')).status).toBe(404);
    expect((await admin.get('/v1/admin/customers?status=frozen')).body.errors[0].code).toBe('INVALID_QUERY');
    for (const [method, path] of [['GET', '/v1/admin/customers'], ['GET', `/v1/admin/customers/${acmeId}`], ['PATCH', `/v1/admin/customers/${otherId}`], ['DELETE', `/v1/admin/customers/${otherId}`]] as const) {
      const r = await acme.send(method, path, method === 'PATCH' ? { status: 'suspended', reason: 'x' } : undefined);
      expect([method, path, r.status, r.body.errors?.[0]?.code]).toEqual([method, path, 403, 'FORBIDDEN']);
    }
    expect((await admin.get(`/v1/admin/customers/${otherId}`)).body.data.attributes.status).toBe('active');
  });

  it('suspends: the project\'s key gets 403 on a GET and a POST from the next request on; another project is unaffected', async () => {
    // The reason is optional (DECISIONS 18): without one the status changes and no reason is recorded.
    const bare = await admin.patch(`/v1/admin/customers/${otherId}`, { status: 'suspended' });
    expect([bare.status, bare.body.data?.attributes]).toEqual([200, expect.objectContaining({ status: 'suspended', statusReason: null })]);
    expect((await other.get('/v1/instances')).status).toBe(403);
    const back = await admin.patch(`/v1/admin/customers/${otherId}`, { status: 'active' });
    expect([back.status, back.body.data?.attributes]).toEqual([200, expect.objectContaining({ status: 'active', statusReason: null })]);
    expect((await admin.patch(`/v1/admin/customers/${acmeId}`, { status: 'suspended', reason: '' })).status).toBe(400);
    expect((await admin.patch(`/v1/admin/customers/${acmeId}`, { status: 'closed', reason: 'x' })).status).toBe(400);
    const suspended = await admin.patch(`/v1/admin/customers/${acmeId}`, { status: 'suspended', reason: 'unpaid invoice' });
    expect(suspended.status).toBe(200);
    expect(suspended.body.data.attributes).toMatchObject({ status: 'suspended', statusReason: 'unpaid invoice' });

    const get = await acme.get('/v1/instances');
    expect([get.status, get.body.errors[0].code]).toEqual([403, 'FORBIDDEN']);
    expect(get.body.errors[0].detail).toContain('suspended');
    const post = await acme.post('/v1/support', { subject: 'Why?', message: 'We are suspended' });
    expect([post.status, post.body.errors[0].code]).toEqual([403, 'FORBIDDEN']);
    const asMember = await member.post('/v1/support', { subject: 'Why?', message: 'We are suspended' });
    expect([asMember.status, asMember.body.errors[0].code]).toEqual([403, 'FORBIDDEN']);
    expect((await member.get('/v1/instances')).status).toBe(403);
    expect((await other.get('/v1/instances')).status).toBe(200);
    expect((await other.post('/v1/support', { subject: 'Hello', message: 'Still here' })).status).toBe(201);

    // Its data is kept, and the list filters by status.
    await expect((await srv.platform.projections.collection(instancesProjection)).get(instanceId)).resolves.toMatchObject({ status: 'active' });
    const only = await admin.get('/v1/admin/customers?status=suspended');
    expect(only.body.data.map((c: { id: string }) => c.id)).toEqual([acmeId]);
    // Suspending again changes nothing.
    const again = await admin.patch(`/v1/admin/customers/${acmeId}`, { status: 'suspended', reason: 'still unpaid' });
    expect(again.body.data.attributes).toMatchObject({ status: 'suspended', statusReason: 'unpaid invoice' });
  });

  it('reactivates: the key answers 200 again', async () => {
    const reactivated = await admin.patch(`/v1/admin/customers/${acmeId}`, { status: 'active', reason: 'paid' });
    expect(reactivated.status).toBe(200);
    expect(reactivated.body.data.attributes).toMatchObject({ status: 'active', statusReason: 'paid' });
    expect((await acme.get('/v1/instances')).status).toBe(200);
    expect((await member.get('/v1/instances')).status).toBe(200);
    expect((await acme.get(`/v1/instances/${instanceId}`)).body.data.attributes.status).toBe('active');
  });

  it('closes: the key gets 401, the running instance and server are terminated through their jobs, the history is kept; closed is final', async () => {
    const closed = await admin.delete(`/v1/admin/customers/${acmeId}?reason=${encodeURIComponent('customer asked')}`);
    expect(closed.status).toBe(200);
    expect(closed.body.data.attributes).toMatchObject({ status: 'closed', statusReason: 'customer asked' });
    const refused = await acme.get('/v1/instances');
    expect([refused.status, refused.body.errors[0].code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await acme.post('/v1/support', { subject: 'x', message: 'y' })).status).toBe(401);
    expect((await member.get('/v1/instances')).status).toBe(401);
    expect((await other.get('/v1/instances')).status).toBe(200);

    const instances = await srv.platform.projections.collection(instancesProjection);
    const terminated = await eventually(() => instances.get(instanceId), (d) => d?.status === 'terminated');
    const jobs = await srv.platform.projections.collection(jobsProjection);
    // The outcome is recorded on the resource first, then on its job.
    const job = await eventually(() => jobs.get(terminated!.jobId!), (j) => j?.status === 'completed');
    expect(job).toMatchObject({ type: 'instance.delete', status: 'completed', projectId: acmeId });

    const history = (await srv.platform.events.readStream(instanceStream(instanceId))).map((e) => e.type);
    expect(history[0]).toBe('compute.InstanceRequested.v1');
    expect(history).toContain('compute.InstanceTerminated.v1');
    const requested = (await srv.platform.events.readStream(instanceStream(instanceId))).find((e) => e.type === 'compute.InstanceActionRequested.v1');
    expect(requested?.metadata).toMatchObject({ actor: 'system:project-closure', projectId: acmeId });

    // the bare-metal server too, through its deletion job
    const servers = await srv.platform.projections.collection(serversProjection);
    await eventually(() => servers.get(serverId), (d) => d?.status === 'terminated');
    const serverHistory = await srv.platform.events.readStream(serverStream(serverId));
    expect(serverHistory.find((e) => e.type === 'compute.ServerDeletionRequested.v1')?.metadata).toMatchObject({ actor: 'system:project-closure', projectId: acmeId });
    expect(serverHistory.map((e) => e.type)).toContain('compute.ServerTerminated.v1');
    expect((await srv.platform.events.readStream(projectStream(acmeId))).map((e) => e.type)).toEqual(['identity.ProjectCreated.v1', 'identity.ProjectSuspended.v1', 'identity.ProjectReactivated.v1', 'identity.ProjectClosed.v1']);

    for (const r of [await admin.delete(`/v1/admin/customers/${acmeId}`), await admin.patch(`/v1/admin/customers/${acmeId}`, { status: 'active', reason: 'oops' })]) {
      expect([r.status, r.body.errors[0].code]).toEqual([409, 'INVALID_STATE']);
    }
    expect((await admin.get(`/v1/admin/customers/${acmeId}`)).body.data.attributes.status).toBe('closed');
    expect((await admin.delete('/v1/admin/customers/unknown-project')).status).toBe(404);
  });

  it('answers analytics from the read models: projects, instances and jobs by status, the job failure rate; test mode counted apart', async () => {
    // A test key's instance runs on the simulator: not in the live figures, in testMode.
    const testProvider = await otherTest.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-789' });
    const simulated = await otherTest.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'simulated', providerId: testProvider.body.data.id });
    expect(simulated.status).toBe(202);
    await eventually(() => otherTest.get(`/v1/jobs/${simulated.body.jobId}`), (r) => r.body.data.attributes.status === 'completed');
    await eventually(() => otherTest.get(`/v1/instances/${simulated.body.data.id}`), (r) => r.body.data.attributes.status === 'active');
    const provider = await other.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-456' });
    const doomed = await other.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'doomed', providerId: provider.body.data.id, tags: { simulate: 'fail:always' } });
    expect(doomed.status).toBe(202);
    await eventuallyRetrying(clock, () => other.get(`/v1/jobs/${doomed.body.jobId}`), (r) => r.body.data.attributes.status === 'failed');
    // A payment settled through Stripe's webhook is revenue; a top-up is not.
    const { reference } = (await other.post('/v1/payments/stripe-initialize', { amountCents: 1500 })).body.data.attributes;
    const payload = JSON.stringify({ id: 'evt_admin_1', object: 'event', type: 'checkout.session.completed', data: { object: { id: 'cs_admin_1', object: 'checkout.session', client_reference_id: reference, amount_total: 1500, currency: 'usd', payment_status: 'paid' } } });
    const delivered = await srv.anonymous.send('POST', '/v1/webhooks/stripe', payload, { 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK_SECRET }) });
    expect(delivered.status).toBe(200);
    const paid = await eventually(() => other.get('/v1/billing/credits?source=payment'), (r) => r.body.data.length === 1);
    const month = (paid.body.data[0].attributes.createdAt as string).slice(0, 7);

    const res = await admin.get('/v1/admin/analytics');
    expect(res.status).toBe(200);
    const a = res.body.data.attributes;
    expect(res.body.data).toMatchObject({ id: 'platform', type: 'analytics' });
    expect(a.projects).toEqual({ total: 3, byStatus: { active: 2, suspended: 0, closed: 1 } });
    const customerStatuses = async (sort: string) => (await admin.get(`/v1/admin/customers?sort=${sort}`)).body.data.map((c: { attributes: { status: string } }) => c.attributes.status);
    expect(await customerStatuses('status')).toEqual(['active', 'active', 'closed']);
    expect(await customerStatuses('-status')).toEqual(['closed', 'active', 'active']);
    expect(a.instances.total).toBe(2);
    expect(a.instances.byStatus).toMatchObject({ terminated: 1, error: 1, active: 0, creating: 0 });
    expect(a.servers).toMatchObject({ total: 1, byStatus: { terminated: 1, active: 0 } });
    expect(a.jobs.byStatus).toMatchObject({ failed: 1, pending: 0, processing: 0 });
    expect(a.jobs.byStatus.completed).toBeGreaterThanOrEqual(2);
    expect(a.jobs.failureRate).toBeCloseTo(1 / (a.jobs.byStatus.completed + 1), 10);
    expect(a.testMode.instances).toEqual({ total: 1, byStatus: expect.objectContaining({ active: 1, error: 0, terminated: 0 }) });
    expect(a.testMode.servers.total).toBe(0);
    expect(a.testMode.jobs.byStatus).toMatchObject({ completed: 1, failed: 0, pending: 0, processing: 0 });
    expect(a.testMode.jobs.failureRate).toBe(0);
    expect(a.revenue).toEqual([{ currency: 'USD', month, amountCents: 1500, payments: 1 }]);
    const refused = await other.get('/v1/admin/analytics');
    expect([refused.status, refused.body.errors[0].code]).toEqual([403, 'FORBIDDEN']);
  }, 90000);

  it('closes a project whose volume is still being created: the closure leaves it, then deletes it through a job once its create completes', async () => {
    const { id, api } = await newProject('gamma');
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-gamma' });
    // Two failed attempts keep the create pending until the clock passes their backoffs (1 s, then 2 s).
    const created = await api.post('/v1/storage/volumes', { name: 'data', sizeGb: 50, region: 'us-east-1', providerId: provider.body.data.id, tags: { simulate: 'fail:2' } });
    expect(created.status).toBe(202);
    const volumeId = created.body.data.id;
    expect((await admin.delete(`/v1/admin/customers/${id}`)).status).toBe(200);
    // the close's sweep found it creating (a volume is deleted only once available) and left it
    await eventually(async () => srv.logs(), (logs) => logs.split('\n').some((l) => l.includes('project closure: resource not terminated') && l.includes(volumeId)));
    const volumes = await srv.platform.projections.collection(volumesProjection);
    expect((await volumes.get(volumeId))?.status).toBe('creating');
    // its create completes (its retries passed on the clock), the project is swept again, and the delete job removes it
    // (read from the jobs model: the closed project's key no longer reads its jobs)
    const jobs = await srv.platform.projections.collection(jobsProjection);
    const settled = (jobId: string) =>
      eventuallyRetrying(clock, () => jobs.get(jobId), (doc) => doc?.status === 'completed', {
        jobOf: (doc) => doc && { id: doc.id, status: doc.status, attempts: doc.attempts, nextAttemptAt: doc.status === 'pending' ? doc.dueAt : null, updatedAt: doc.updatedAt },
      });
    expect((await settled(created.body.jobId))?.attempts).toBe(3);
    const isDeletion = (e: { type: string; data: unknown }) => e.type === 'storage.VolumeOperationRequested.v1' && (e.data as { operation: string }).operation === 'delete';
    const requested = await eventually(() => srv.platform.events.readStream(volumeStream(volumeId)), (events) => events.some(isDeletion));
    // The delete fails twice too (the `simulate` tag fails every operation's first two attempts).
    expect((await settled((requested.find(isDeletion)!.data as { jobId: string }).jobId))?.attempts).toBe(3);
    await eventually(() => volumes.get(volumeId), (doc) => doc === null, 60000);
    const history = await srv.platform.events.readStream(volumeStream(volumeId));
    const deletion = history.find(isDeletion);
    expect(deletion?.metadata).toMatchObject({ actor: 'system:project-closure', projectId: id });
    expect(history[0].type).toBe('storage.VolumeRequested.v1');
  }, 90000);
});
