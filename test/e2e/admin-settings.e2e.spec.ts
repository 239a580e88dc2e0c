import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
const PLAN = 'pc-t3-medium';

describe.each<Profile>(['embedded', 'server'])('admin config, margin and catalog (%s profile)', (profile) => {
  let srv: TestServer;
  let admin: Api;
  let customer: Api;
  let providerId: string;
  let planId: string;
  let provider: { USD: { hourlyCents: number; monthlyCents: number; yearlyCents: number }; NGN: { hourlyCents: number; monthlyCents: number; yearlyCents: number } };

  const customerPlan = async () => (await customer.get(`/v1/plans/${PLAN}`)).body.data.attributes.pricing;
  const customerInstanceType = async () => (await customer.get(`/v1/catalog/instance-types?providerId=${providerId}&limit=100`)).body.data.find((t: { attributes: { slug: string } }) => t.attributes.slug === PLAN).attributes.hourlyCents;
  const withMargin = (cents: number, percent: number) => Math.round((cents * (100 + percent)) / 100);

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' });
    admin = srv.as(srv.bootstrap.adminKey);
    customer = srv.as(srv.bootstrap.apiKey);
    providerId = (await customer.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-test-123' })).body.data.id;
    const plan = await customer.get(`/v1/plans/${PLAN}`);
    planId = plan.body.data.id;
    provider = plan.body.data.attributes.pricing;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers a project key 403 on every admin settings and catalog route', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/admin/config'],
      ['PUT', '/v1/admin/config', {}],
      ['GET', '/v1/admin/config/margin'],
      ['PUT', '/v1/admin/config/margin', { margin: 10 }],
      ['GET', '/v1/admin/catalog/resources'],
      ['GET', `/v1/admin/catalog/${planId}`],
      ['POST', `/v1/admin/catalog/${planId}`, { enabled: false }],
    ] as const) {
      const r = await customer.send(method, path, body);
      expect([method, path, r.status, r.body.errors[0].code]).toEqual([method, path, 403, 'FORBIDDEN']);
    }
  });

  it('replaces the configuration as an event-sourced setting, validated against the known settings', async () => {
    const initial = await admin.get('/v1/admin/config');
    expect(initial.body.data).toEqual({ id: 'platform', type: 'config', attributes: { platformName: 'Cloud', supportEmail: null, defaultCurrency: 'USD', signupsEnabled: true, maintenanceMessage: null, updatedAt: null } });
    const put = await admin.send('PUT', '/v1/admin/config', { platformName: 'Acme Cloud', supportEmail: 'help@acme.test', defaultCurrency: 'NGN' });
    expect(put.status).toBe(200);
    expect(put.body.data.attributes).toMatchObject({ platformName: 'Acme Cloud', supportEmail: 'help@acme.test', defaultCurrency: 'NGN', signupsEnabled: true, updatedAt: expect.any(String) });
    expect((await admin.get('/v1/admin/config')).body.data).toEqual(put.body.data);
    for (const bad of [{ defaultCurrency: 'EUR' }, { unknownSetting: true }, { supportEmail: 'not-an-email' }, { signupsEnabled: 'yes' }]) {
      const r = await admin.send('PUT', '/v1/admin/config', bad);
      expect([bad, r.status, r.body.errors[0].code]).toEqual([bad, 400, 'BAD_REQUEST']);
    }
    expect((await admin.get('/v1/admin/config')).body.data.attributes.platformName).toBe('Acme Cloud');
    const events = (await srv.platform.events.readStream('admin-settings')).map((e) => e.type);
    expect(events).toEqual(['admin.PlatformConfigUpdated.v1']);
  });

  it('takes a margin from 0 to 1000 percent (anything else 400) and applies it to the prices customers see, not to admin views', async () => {
    expect((await admin.get('/v1/admin/config/margin')).body.data.attributes).toEqual({ margin: 0, updatedAt: null });
    for (const bad of [{ margin: 1000.01 }, { margin: -1 }, { margin: 'ten' }, {}, { margin: null }, { margin: 10, extra: 1 }]) {
      const r = await admin.send('PUT', '/v1/admin/config/margin', bad);
      expect([bad, r.status, r.body.errors[0].code]).toEqual([bad, 400, 'BAD_REQUEST']);
    }
    expect((await admin.send('PUT', '/v1/admin/config/margin', { margin: 1001 })).body.errors[0].source.pointer).toBe('/margin');
    expect((await customerPlan()).USD).toEqual(provider.USD);

    expect((await admin.send('PUT', '/v1/admin/config/margin', { margin: 1000 })).body.data.attributes.margin).toBe(1000);
    expect((await customerPlan()).USD.hourlyCents).toBe(provider.USD.hourlyCents * 11);
    const set = await admin.send('PUT', '/v1/admin/config/margin', { margin: 25 });
    expect(set.status).toBe(200);
    expect(set.body.data.attributes).toEqual({ margin: 25, updatedAt: expect.any(String) });

    // The next customer read sees the new prices: plans, instance types, billing options.
    const pricing = await customerPlan();
    expect(pricing.USD).toEqual({ hourlyCents: withMargin(provider.USD.hourlyCents, 25), monthlyCents: withMargin(provider.USD.monthlyCents, 25), yearlyCents: withMargin(provider.USD.yearlyCents, 25) });
    expect(pricing.NGN.monthlyCents).toBe(withMargin(provider.NGN.monthlyCents, 25));
    expect(await customerInstanceType()).toBe(withMargin(provider.USD.hourlyCents, 25));
    const options = await customer.get(`/v1/server-catalog/billing-options?serverId=${PLAN}`);
    expect(options.body.data.find((o: { id: string }) => o.id === 'monthly').attributes.priceCents.USD).toBe(withMargin(provider.USD.monthlyCents, 25));
    // The admin's view keeps the provider's price.
    const entry = await admin.get(`/v1/admin/catalog/${planId}`);
    expect(entry.body.data.attributes).toMatchObject({ resourceType: 'plan', slug: PLAN, enabled: true, providerPricing: provider, priceOverride: null });
  });

  it('lists catalog entries for the admin (paginated, filtered) and overrides a price (margin on top)', async () => {
    const plans = await admin.get('/v1/admin/catalog/resources?resourceType=plan&limit=5&sort=slug');
    expect(plans.status).toBe(200);
    expect(plans.body.meta).toMatchObject({ page: 1, limit: 5 });
    expect(plans.body.meta.total).toBeGreaterThan(5);
    expect(plans.body.links.next).toContain('resourceType=plan');
    expect(plans.body.data.every((e: { attributes: { resourceType: string } }) => e.attributes.resourceType === 'plan')).toBe(true);
    expect((await admin.get('/v1/admin/catalog/resources?resourceType=planet')).status).toBe(400);
    expect((await admin.get('/v1/admin/catalog/no-such-entry')).status).toBe(404);
    expect((await admin.post('/v1/admin/catalog/no-such-entry', { enabled: false })).status).toBe(404);
    expect((await admin.post(`/v1/admin/catalog/${planId}`, {})).status).toBe(400);
    expect((await admin.post(`/v1/admin/catalog/${planId}`, { priceOverride: { USD: { hourlyCents: -1, monthlyCents: 1, yearlyCents: 1 } } })).status).toBe(400);
    const region = (await admin.get('/v1/admin/catalog/resources?resourceType=region&limit=1')).body.data[0];
    const refused = await admin.post(`/v1/admin/catalog/${region.id}`, { priceOverride: { USD: { hourlyCents: 1, monthlyCents: 1, yearlyCents: 1 } } });
    expect([refused.status, refused.body.errors[0].code]).toEqual([400, 'BAD_REQUEST']);

    const override = { hourlyCents: 100, monthlyCents: 50000, yearlyCents: 500000 };
    const edited = await admin.post(`/v1/admin/catalog/${PLAN}`, { priceOverride: { USD: override } });
    expect(edited.status).toBe(200);
    expect(edited.body.data.attributes).toMatchObject({ priceOverride: { USD: override }, providerPricing: provider, editedAt: expect.any(String) });
    expect((await customerPlan()).USD).toEqual({ hourlyCents: 125, monthlyCents: 62500, yearlyCents: 625000 });
    expect((await customerPlan()).NGN.hourlyCents).toBe(withMargin(provider.NGN.hourlyCents, 25));
    expect(await customerInstanceType()).toBe(125);
    expect((await admin.post(`/v1/admin/catalog/${PLAN}`, { priceOverride: null })).body.data.attributes.priceOverride).toBeNull();
    expect((await customerPlan()).USD.hourlyCents).toBe(withMargin(provider.USD.hourlyCents, 25));
  });

  it('disables an entry: hidden from customers and refused on creates; enabling restores it', async () => {
    const disabled = await admin.post(`/v1/admin/catalog/${planId}`, { enabled: false });
    expect([disabled.status, disabled.body.data.attributes.enabled]).toEqual([200, false]);
    expect((await customer.get(`/v1/plans/${PLAN}`)).status).toBe(404);
    const create = await customer.post('/v1/instances', { region: 'us-east-1', instanceType: PLAN, name: 'web-1', providerId });
    expect([create.status, create.body.errors[0].code]).toEqual([422, 'INVALID_PLAN']);
    expect((await admin.get('/v1/admin/catalog/resources?enabled=false')).body.data.map((e: { id: string }) => e.id)).toEqual([planId]);
    expect((await admin.get(`/v1/admin/catalog/${planId}`)).body.data.attributes.enabled).toBe(false);

    expect((await admin.post(`/v1/admin/catalog/${planId}`, { enabled: true })).body.data.attributes.enabled).toBe(true);
    expect((await customer.get(`/v1/plans/${PLAN}`)).status).toBe(200);
    const created = await customer.post('/v1/instances', { region: 'us-east-1', instanceType: PLAN, name: 'web-1', providerId });
    expect(created.status).toBe(202);
    const types = (await srv.platform.events.readStream('admin-settings')).map((e) => e.type);
    expect(types.filter((t) => t === 'admin.CatalogEntryUpdated.v1')).toHaveLength(4);
  });
});
