import { startOfNextMonth } from '../../libs/domain/invoicing/usage';
import { ManualClock } from '../../libs/runtime/src/clock';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { billingAccountsProjection } from '../../projections/billing-accounts/billing-accounts.projection';
import { ed25519Key } from '../support/ssh-keys';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import type { TestResponse } from '../support/http-client';
import { eventually } from '../support/wait';

type Api = ReturnType<TestServer['as']>;
type Mode = 'live' | 'test';
const MODES: Mode[] = ['live', 'test'];
const other = (m: Mode): Mode => (m === 'live' ? 'test' : 'live');

interface Operation { method: string; path: string }

/**
 * One of each resource a key can create, made once per mode. `path` is its collection: the list is
 * `GET path`, the resource `GET path/{id}`. `body` gets the mode's own provider (and `byProvider`
 * routes its id as `?providerId=`; `createByProvider` creates only: the job-backed resources choose
 * among the project's providers that way).
 */
const SEEDS: { name: string; path: string; body: (provider: string, n: string) => unknown; byProvider?: true; createByProvider?: true }[] = [
  { name: 'provider', path: '/v1/providers', body: (_p, n) => ({ name: 'provider_publiccloud', apiKey: `sk-${n}` }) },
  { name: 'metal provider', path: '/v1/providers', body: (_p, n) => ({ name: 'provider_baremetal', apiKey: `sk-${n}` }) },
  { name: 'provider key', path: '/v1/iam/api-keys', body: (p, n) => ({ name: n, providerId: p }) },
  // SSH keys belong to a provider: every route takes `?providerId=`.
  { name: 'ssh key', path: '/v1/ssh-keys', body: (_p, n) => ({ name: n, publicKey: ed25519Key() }), byProvider: true },
  { name: 'template', path: '/v1/templates', body: (p, n) => ({ name: n, providerId: p, region: 'us-east-1', instanceType: 'pc-t3-medium' }) },
  { name: 'instance', path: '/v1/instances', body: (p, n) => ({ name: n, providerId: p, region: 'us-east-1', instanceType: 'pc-t3-medium' }) },
  { name: 'server', path: '/v1/servers', body: (p, n) => ({ name: n, hostname: n, site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'hourly', role: 'VirtualMachine', provider: p }) },
  { name: 'database', path: '/v1/databases', body: (_p, n) => ({ name: n, engine: 'postgres', version: '16', plan: 'pc-t3-medium', region: 'us-east-1' }), createByProvider: true },
  { name: 'cluster', path: '/v1/kubernetes/clusters', body: (_p, n) => ({ name: n, region: 'us-east-1', version: '1.31.1', nodePools: [{ name: 'default', plan: 'pc-t3-medium', count: 1 }] }), createByProvider: true },
  { name: 'private network', path: '/v1/networking/private-networks', body: (_p, n) => ({ name: n, region: 'us-east-1', cidr: '10.40.0.0/24' }), createByProvider: true },
  { name: 'firewall', path: '/v1/networking/firewalls', body: (_p, n) => ({ name: n, rules: [] }), createByProvider: true },
  { name: 'vlan', path: '/v1/networking/vlans', body: (_p, n) => ({ name: n, region: 'NYC', cidr: '10.41.0.0/24' }) },
  { name: 'elastic ip', path: '/v1/networking/elastic-ips', body: (_p, n) => ({ name: n, region: 'us-east-1' }), createByProvider: true },
  { name: 'volume', path: '/v1/storage/volumes', body: (p, n) => ({ name: n, sizeGb: 10, region: 'us-east-1', providerId: p }) },
  { name: 'bucket', path: '/v1/storage/object-storage/buckets', body: (_p, n) => ({ name: n, region: 'us-east-1' }), createByProvider: true },
  { name: 'file', path: '/v1/files', body: (_p, n) => ({ path: '/sep', name: `${n}.txt`, content: n }) },
  { name: 'support ticket', path: '/v1/support', body: (_p, n) => ({ subject: n, message: 'separate?' }) },
  { name: 'notification', path: '/v1/notifications', body: (_p, n) => ({ title: n, message: 'separate?' }) },
  { name: 'notification endpoint', path: '/v1/notifications/endpoints', body: (_p, n) => ({ type: 'webhook', url: `https://hooks.example.com/${n}`, events: ['notification.created'] }) },
  { name: 'invoice', path: '/v1/invoices', body: () => ({ currency: 'USD', amountCents: 1000, dueDate: '2030-01-31' }) },
];

/**
 * Test-mode data separation (DECISIONS 21, issue 13): a project's `svc_test_` and `svc_live_` keys
 * see disjoint data. Every resource is made once per mode; then every GET list route of the OpenAPI
 * document is walked with both keys (no answer of one mode names anything the other made), every
 * route under a made resource is called with the other mode's id (404, never a 2xx), Idempotency-Keys
 * do not meet across modes, wallets are separate, and test-mode usage is not invoiced at month end.
 */
describe.each<Profile>(['embedded', 'server'])('test-mode data separation (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let project: string;
  const keys = {} as Record<Mode, Api>;
  /** Per mode: seed name → id (and the job ids its creates enqueued). */
  const made = { live: new Map<string, string>(), test: new Map<string, string>() } as Record<Mode, Map<string, string>>;
  const madeIds = (m: Mode) => [...made[m].values()];
  /** `?providerId=` of the mode's own provider, for the routes of resources that belong to a provider. */
  const providerQuery = (m: Mode, sep = '?') => `${sep}providerId=${made[m].get('provider')}`;
  const seedQuery = (seed: (typeof SEEDS)[number], m: Mode) => (seed.byProvider ? providerQuery(m) : '');
  let operations: Operation[];

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    project = srv.bootstrap.projectId;
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    for (const mode of MODES) {
      const key = await bootstrap.post('/v1/api-keys', { name: `${mode} owner`, role: 'owner', mode });
      expect(key.status).toBe(201);
      keys[mode] = srv.as(key.body.data.attributes.key);
    }
    for (const mode of MODES) {
      for (const seed of SEEDS) {
        const res = await keys[mode].post(seed.path + (seed.createByProvider ? providerQuery(mode) : seedQuery(seed, mode)), seed.body(made[mode].get('provider') ?? '', `${mode}-${seed.name.replace(/ /g, '-')}`));
        expect([seed.name, [200, 201, 202].includes(res.status) ? 'created' : `${res.status} ${res.text.slice(0, 300)}`]).toEqual([seed.name, 'created']);
        made[mode].set(seed.name, res.body.data.id);
        if (res.body.jobId) made[mode].set(`${seed.name} job`, res.body.jobId);
      }
      const credit = await keys[mode].post('/v1/billing/wallets/USD/credit', { amountCents: mode === 'live' ? 1111 : 2222 });
      expect(credit.status).toBe(200);
    }
    const doc = await srv.anonymous.get('/v1/openapi.json');
    operations = Object.entries(doc.body.paths as Record<string, Record<string, { 'x-permission'?: string }>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        // A stream (text/event-stream) never ends: its mode separation is events-stream.e2e's.
        .filter(([, op]) => op['x-permission'] && !(op as { responses?: Record<string, { content?: Record<string, unknown> }> }).responses?.['200']?.content?.['text/event-stream'])
        .map(([method]) => ({ method: method.toUpperCase(), path })),
    );
    // Let every job the creates enqueued settle, so the walks below see the resources as they stay.
    for (const mode of MODES) {
      for (const [name, id] of made[mode]) {
        if (name.endsWith(' job')) await eventually(() => keys[mode].get(`/v1/jobs/${id}`), (r) => ['completed', 'failed'].includes(r.body.data?.attributes.status), 30000);
      }
    }
  }, 180000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('the keys are of both modes and every resource was made once in each', () => {
    expect(made.live.size).toBeGreaterThanOrEqual(SEEDS.length);
    for (const seed of SEEDS) expect(made.live.get(seed.name)).not.toEqual(made.test.get(seed.name));
  });

  it("walks every list route with both keys: no answer names anything the other mode made, nor the test scope's internal id", async () => {
    const lists = operations.filter((op) => op.method === 'GET' && !/\{(?!projectId\})[^}]+\}/.test(op.path));
    expect(lists.length).toBeGreaterThan(50);
    const leaks: string[] = [];
    const ownSeen = { live: new Set<string>(), test: new Set<string>() };
    for (const op of lists) {
      const path = op.path.replace('{projectId}', project);
      const statuses: number[] = [];
      for (const mode of MODES) {
        let res = await keys[mode].get(`${path}?limit=100`);
        if (res.status === 400 && res.body.errors?.[0]?.source?.parameter === 'providerId') res = await keys[mode].get(`${path}?limit=100${providerQuery(mode, '&')}`);
        else if (res.status === 400) res = await keys[mode].get(path);
        statuses.push(res.status);
        expect([op.path, res.status]).not.toEqual([op.path, 500]);
        const text = res.text;
        for (const id of madeIds(other(mode))) if (text.includes(id)) leaks.push(`${mode} key: GET ${op.path} shows ${id}`);
        if (text.includes(`${project}:test`)) leaks.push(`${mode} key: GET ${op.path} shows the test scope's id`);
        for (const id of madeIds(mode)) if (text.includes(id)) ownSeen[mode].add(id);
      }
      // Both modes are answered alike (a route refusing one mode's key would be a mode-dependent contract).
      expect([op.path, statuses[1]]).toEqual([op.path, statuses[0]]);
    }
    expect(leaks).toEqual([]);
    // Each mode's lists do show what that mode made: the walk could have caught a leak.
    for (const mode of MODES) for (const seed of SEEDS) expect([mode, seed.name, ownSeen[mode].has(made[mode].get(seed.name)!)]).toEqual([mode, seed.name, true]);
  }, 120000);

  it("answers 404 to every route under a resource the other mode made (never a 2xx), and the owner's mode still sees it", async () => {
    const wrong: string[] = [];
    let tried = 0;
    for (const seed of SEEDS) {
      const under = operations.filter((op) => op.path.startsWith(`${seed.path}/{`) && (op.path.match(/\{/g) ?? []).length === 1);
      expect([seed.name, under.length > 0]).toEqual([seed.name, true]);
      const hasGet = under.some((op) => op.method === 'GET' && /^[^{]*\{[^}]+\}$/.test(op.path));
      for (const mode of MODES) {
        const foreign = made[other(mode)].get(seed.name)!;
        for (const op of under) {
          const url = op.path.replace(/\{[^}]+\}/, foreign) + seedQuery(seed, mode);
          const res = await keys[mode].send(op.method, url, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
          tried++;
          if (op.method === 'GET' ? res.status !== 404 : res.status < 300 || res.status === 500) wrong.push(`${mode} key: ${op.method} ${op.path} with the ${other(mode)} ${seed.name} → ${res.status}`);
        }
        if (!hasGet) continue;
        const own = await keys[mode].get(`${seed.path}/${made[mode].get(seed.name)}${seedQuery(seed, mode)}`);
        expect([seed.name, mode, own.status]).toEqual([seed.name, mode, 200]);
      }
    }
    expect(tried).toBeGreaterThan(SEEDS.length * 2);
    expect(wrong).toEqual([]);
  }, 120000);

  it('keeps Idempotency-Keys apart: the same key in both modes makes two resources, and each mode replays its own', async () => {
    const headers = { 'Idempotency-Key': `sep-${profile}` };
    const body = { name: 'idem', publicKey: ed25519Key() };
    const liveFirst = await keys.live.post(`/v1/ssh-keys${providerQuery('live')}`, body, headers);
    const testFirst = await keys.test.post(`/v1/ssh-keys${providerQuery('test')}`, body, headers);
    expect([liveFirst.status, testFirst.status]).toEqual([201, 201]);
    expect(testFirst.body.data.id).not.toBe(liveFirst.body.data.id);
    const liveAgain = await keys.live.post(`/v1/ssh-keys${providerQuery('live')}`, body, headers);
    expect([liveAgain.status, liveAgain.body.data?.id]).toEqual([201, liveFirst.body.data.id]);
    const testList = await keys.test.get(`/v1/ssh-keys${providerQuery('test')}&limit=100`);
    expect(testList.body.data.map((k: { id: string }) => k.id)).toContain(testFirst.body.data.id);
    expect(testList.body.data.map((k: { id: string }) => k.id)).not.toContain(liveFirst.body.data.id);
  });

  it("keeps wallets apart: each mode's USD balance is its own credits", async () => {
    for (const [mode, cents] of [['live', 1111], ['test', 2222]] as const) {
      const wallet = await keys[mode].get('/v1/billing/wallets/USD');
      expect([mode, wallet.status, wallet.body.data.attributes.balanceCents]).toEqual([mode, 200, cents]);
    }
  });

  it('invoices live usage at month end and never test-mode usage; every event of the test-mode work says mode test', async () => {
    const accounts = await srv.platform.projections.collection(billingAccountsProjection);
    expect((await accounts.get(project))?.runArmed).toBe(true);
    expect(await accounts.get(`${project}:test`)).toMatchObject({ runArmed: false, nextRunAt: null });
    expect((await keys.test.get('/v1/billing/overview')).body.data.attributes.upcomingChargesCents).toBe(0);

    const monthEnd = startOfNextMonth(clock.now());
    clock.advance(monthEnd - clock.now() + 60_000);
    const usageInvoices = (r: TestResponse) => (r.body.data ?? []).filter((i: { source: string }) => i.source === 'usage');
    await eventually(() => keys.live.get('/v1/invoices?limit=100'), (r) => usageInvoices(r).length === 1, 30000);
    // The run has passed the month: the test scope, never armed, has only the invoice made by hand.
    const testInvoices = await keys.test.get('/v1/invoices?limit=100');
    expect(testInvoices.body.data.map((i: { id: string }) => i.id)).toEqual([made.test.get('invoice')]);

    for (const name of ['instance', 'server']) {
      const stream = `${name}-${made.test.get(name)}`;
      const events = await srv.platform.events.readStream(stream);
      expect(events.length).toBeGreaterThanOrEqual(2);
      for (const e of events) expect([stream, e.type, e.metadata.mode, e.metadata.projectId]).toEqual([stream, e.type, 'test', `${project}:test`]);
    }
  }, 90000);

  it("closing the project terminates both modes' running resources through their jobs", async () => {
    const admin = srv.as(srv.bootstrap.adminKey);
    const closed = await admin.delete(`/v1/admin/customers/${project}?reason=${encodeURIComponent('end of test')}`);
    expect(closed.status).toBe(200);
    const instances = await srv.platform.projections.collection(instancesProjection);
    for (const mode of MODES) {
      const doc = await eventually(() => instances.get(made[mode].get('instance')!), (d) => d?.status === 'terminated', 30000);
      expect([mode, doc?.projectId]).toEqual([mode, mode === 'test' ? `${project}:test` : project]);
      const events = await srv.platform.events.readStream(`instance-${made[mode].get('instance')}`);
      const last = events[events.length - 1];
      expect([mode, last.metadata.mode]).toEqual([mode, mode]);
    }
  }, 60000);
});
