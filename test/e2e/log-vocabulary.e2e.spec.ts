import { createHmac } from 'node:crypto';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { CONTEXT_MODULES } from '../../contexts/registrations';
import { logVocabularyProblems } from '../support/log-vocabulary';
import { ed25519Key } from '../support/ssh-keys';
import { startTestServer, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';

const GITHUB_SECRET = 'gh_hook_secret_vocabulary_0123';

/**
 * One vocabulary over a whole log: after a flow that writes most kinds of stream (resources and their
 * jobs, the range ledger, inbound webhooks, invoices, members, notifications, KYC, catalog sync), every
 * stream category holds the events of exactly one context (so each stream's events are on one topic,
 * in order) and every event type is registered by its context.
 */
describe('every stream holds one context\'s events, every type is registered (embedded profile)', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer('embedded', { SIMULATOR_LATENCY: 'zero', GITHUB_WEBHOOK_SECRET: GITHUB_SECRET });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('scans the log after a representative flow', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const admin = srv.as(srv.bootstrap.adminKey);
    const refused: string[] = [];
    const ok = async (res: Promise<{ status: number; body: any }>, what: string) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const r = await res;
      if (r.status >= 300) refused.push(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body;
    };
    const providerId = (await ok(api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-vocab' }), 'provider')).data.id as string;
    const instance = await ok(api.post('/v1/instances', { name: 'web-1', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' }), 'instance');
    await ok(api.post(`/v1/ssh-keys?providerId=${providerId}`, { name: 'k', publicKey: ed25519Key() }), 'ssh key');
    await ok(api.post(`/v1/storage/volumes?providerId=${providerId}`, { name: 'v', region: 'us-east-1', sizeGb: 10 }), 'volume');
    await ok(api.post(`/v1/networking/private-networks?providerId=${providerId}`, { name: 'pn', region: 'us-east-1', cidr: '10.80.0.0/16' }), 'private network');
    await ok(api.post(`/v1/networking/firewalls?providerId=${providerId}`, { name: 'fw', rules: [] }), 'firewall');
    await ok(api.post('/v1/files', { path: '/notes', name: 'a.txt', content: 'hello' }), 'file');
    await ok(api.post('/v1/support', { subject: 'Disk', message: 'slow', priority: 'low', category: 'storage' }), 'ticket');
    await ok(api.post('/v1/notifications', { title: 'hi', message: 'there' }), 'notification');
    await ok(api.post('/v1/iam/members', { email: 'eve@example.com', role: 'viewer' }), 'member');
    await ok(api.post('/v1/iam/roles', { name: 'Readers', permissions: ['instances:read'] }), 'role');
    await ok(api.post('/v1/billing/wallets/USD/credit', { amountCents: 2500 }), 'wallet credit');
    await ok(api.post('/v1/kyc', { legalName: 'Acme Ltd', registrationNumber: 'RC-123456', country: 'NG', address: '1 Marina, Lagos', contactName: 'Ada Obi', contactEmail: 'ada@acme.test' }), 'kyc');
    const liveKey = (await ok(api.post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' }), 'api key')).data.attributes.key as string;
    await ok(srv.as(liveKey).post('/v1/invoices', { currency: 'USD', amountCents: 1000, dueDate: '2030-01-31' }), 'invoice');
    const sync = await ok(admin.post('/v1/admin/catalog/sync/provider_publiccloud'), 'catalog sync');
    const push = JSON.stringify({ ref: 'refs/heads/main', after: 'abc123' });
    const hub = `sha256=${createHmac('sha256', GITHUB_SECRET).update(push).digest('hex')}`;
    await ok(srv.anonymous.send('POST', '/v1/webhooks/github', push, { 'X-Hub-Signature-256': hub, 'X-GitHub-Delivery': 'vocab-1', 'X-GitHub-Event': 'push' }), 'github webhook');
    expect(refused).toEqual([]);
    await eventually(() => api.get(`/v1/instances/${instance.data.id}`), (r) => r.body.data.attributes.status === 'active', 30000);
    await eventually(() => srv.platform.events.readStream(`job-${sync.jobId}`), (e) => e.some((x) => x.type === 'jobs.JobCompleted.v1'), 30000);

    const log: RecordedEvent[] = [];
    for (let from = 0; ; ) {
      const page = await srv.platform.events.readAll({ fromPosition: from, maxCount: 1000 });
      if (page.length === 0) break;
      log.push(...page);
      from = page[page.length - 1].position;
    }
    const { mixedCategories, unregisteredTypes, categories } = logVocabularyProblems(log, CONTEXT_MODULES);
    expect(mixedCategories).toEqual({});
    expect(unregisteredTypes).toEqual([]);
    // The flow did reach the streams that matter here (so the scan is not vacuous).
    expect(categories).toMatchObject({ instance: 'compute', job: 'jobs', provider: 'providers', pnetranges: 'networking', privatenetwork: 'networking', inboundwebhook: 'webhooks', invoice: 'billing', wallet: 'billing', catalog: 'catalog', ticket: 'support', file: 'files', notification: 'notifications', member: 'identity', admin: 'admin' });
  }, 120000);
});
