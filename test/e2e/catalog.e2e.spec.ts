import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { seedCatalog, syncCatalog } from '../../sagas/catalog-sync/catalog-sync';
import { CatalogValidation } from '../../usecases/catalog/catalog-validation';
import { catalogId } from '../../libs/providers/src/simulator/catalog-data';

describe.each<Profile>(['embedded', 'server'])('catalog (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: ReturnType<TestServer['as']>;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
    await seedCatalog(srv.platform); // the integrator calls this at start-up
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('seeds once: a second seed and an unchanged sync append nothing', async () => {
    const before = await srv.platform.events.headPosition();
    await seedCatalog(srv.platform);
    const r = await syncCatalog(srv.platform, 'provider_baremetal', { metadata: { actor: 'test' } });
    expect(r.changed).toBe(false);
    expect(await srv.platform.events.headPosition()).toBe(before);
    const events = await srv.platform.events.readStream('catalog-provider_baremetal');
    expect(events.map((e) => e.type)).toEqual(['catalog.CatalogSynced.v1']);
  });

  it('lists every catalog view newest first by default, and sorts each by createdAt (DECISIONS 2)', async () => {
    const routes = [
      '/v1/plans',
      '/v1/regions',
      '/v1/operating_systems',
      '/v1/server-catalog/categories',
      '/v1/server-catalog/tiers',
      '/v1/server-catalog/macroregions',
      '/v1/server-catalog/cities',
      '/v1/server-catalog/servers',
      '/v1/server-catalog/os-versions',
      '/v1/server-catalog/billing-options',
      '/v1/catalog/instance-types',
      '/v1/catalog/regions',
      '/v1/catalog/images',
      '/v1/catalog/availability',
    ];
    for (const route of routes) {
      const byDefault = await owner.get(`${route}?limit=100`);
      const newest = await owner.get(`${route}?limit=100&sort=-createdAt`);
      const oldest = await owner.get(`${route}?limit=100&sort=createdAt`);
      expect([route, byDefault.status, newest.status, oldest.status]).toEqual([route, 200, 200, 200]);
      const times = byDefault.body.data.map((d: { attributes: { createdAt: string } }) => d.attributes.createdAt);
      expect([route, times.every((t: unknown) => typeof t === 'string')]).toEqual([route, true]);
      expect([route, times]).toEqual([route, [...times].sort().reverse()]);
      expect([route, byDefault.body.data.map((d: { id: string }) => d.id)]).toEqual([route, newest.body.data.map((d: { id: string }) => d.id)]);
    }
  });

  it('lists plans paginated with pricing and availability, and gets one by slug or id', async () => {
    const p1 = await owner.get('/v1/plans?limit=5');
    expect(p1.status).toBe(200);
    expect(p1.body.data).toHaveLength(5);
    expect(p1.body.meta).toMatchObject({ page: 1, limit: 5, total: 21, totalPages: 5 });
    expect(p1.body.links.next).toContain('page=2');
    const p5 = await owner.get('/v1/plans?limit=5&page=5');
    expect(p5.body.data).toHaveLength(1);
    const names = (await owner.get('/v1/plans?limit=100&sort=-name')).body.data.map((p: { attributes: { name: string } }) => p.attributes.name);
    expect(names).toEqual([...names].sort().reverse());
    const bySlug = await owner.get('/v1/plans/c3-medium-x86');
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data).toMatchObject({ type: 'plans', id: catalogId('plan', 'c3-medium-x86'), attributes: { slug: 'c3-medium-x86', category: 'bare-metal', cpuCores: 24 } });
    expect(Number.isInteger(bySlug.body.data.attributes.pricing.NGN.monthlyCents)).toBe(true);
    expect((await owner.get(`/v1/plans/${bySlug.body.data.id}`)).body).toEqual(bySlug.body);
    expect((await owner.get('/v1/plans/nope')).status).toBe(404);
    expect((await owner.get('/v1/plans?limit=101')).body.errors[0].code).toBe('INVALID_QUERY');
    const gpu = await owner.get('/v1/plans?category=bare-metal-gpu&region=LOS');
    expect(gpu.body.data.map((p: { attributes: { slug: string } }) => p.attributes.slug)).toEqual(['g3-l40s-x2']);
  });

  it('serves regions and operating systems, with the compatible aliases', async () => {
    const regions = await owner.get('/v1/regions?limit=100');
    expect(regions.body.meta.total).toBe(22);
    const nyc = await owner.get('/v1/regions/NYC');
    expect(nyc.body.data.attributes).toMatchObject({ city: 'New York', country: 'US', site: 'NYC' });
    expect((await owner.get(`/v1/regions/${nyc.body.data.id}`)).status).toBe(200);
    expect((await owner.get('/v1/regions/atlantis')).status).toBe(404);
    const os = await owner.get('/v1/operating_systems');
    const alias = await owner.get('/v1/plans/operating_systems');
    expect(os.status).toBe(200);
    expect(alias.body.data).toEqual(os.body.data);
    const one = await owner.get('/v1/operating_systems/ubuntu_24_04_x64_lts');
    expect(one.body.data.attributes).toMatchObject({ family: 'ubuntu', version: '24.04' });
    expect((await owner.get(`/v1/plans/operating-systems/${one.body.data.id}`)).body).toEqual(one.body);
    expect((await owner.get('/v1/plans/operating-systems/beos')).status).toBe(404);
  });

  it('serves the server catalog', async () => {
    expect((await owner.get('/v1/server-catalog/categories')).body.data.map((c: { id: string }) => c.id).sort()).toEqual(['bare-metal', 'bare-metal-gpu', 'virtual-machine', 'virtual-machine-gpu']);
    expect((await owner.get('/v1/server-catalog/tiers')).body.data.map((c: { id: string }) => c.id).sort()).toEqual(['all', 'core-optimized', 'memory-optimized', 'storage-optimized']);
    expect((await owner.get('/v1/server-catalog/macroregions')).body.data.map((c: { id: string }) => c.id)).toContain('africa');
    const cities = await owner.get('/v1/server-catalog/cities?region=africa');
    expect(cities.body.data.map((c: { attributes: { name: string } }) => c.attributes.name).sort()).toEqual(['Cape Town', 'Lagos']);
    const servers = await owner.get('/v1/server-catalog/servers?category=bare-metal&tier=memory-optimized&region=NYC');
    expect(servers.body.data.map((s: { id: string }) => s.id).length).toBe(2);
    expect((await owner.get('/v1/server-catalog/servers/m3-large-x86')).body.data.attributes.memoryGb).toBe(256);
    expect((await owner.get('/v1/server-catalog/servers/zzz')).status).toBe(404);
    const osv = await owner.get('/v1/server-catalog/os-versions?category=bare-metal-gpu');
    expect(osv.body.data.map((o: { id: string; attributes: { slug: string } }) => o.attributes.slug)).not.toContain('windows_2022');
    const billing = await owner.get('/v1/server-catalog/billing-options?serverId=c2-small-x86');
    expect(billing.body.data.map((b: { id: string }) => b.id)).toEqual(['hourly', 'monthly', 'yearly']);
    expect(billing.body.data[0].attributes.priceCents).toEqual({ USD: 38, NGN: 38 * 1550 });
    expect((await owner.get('/v1/server-catalog/servers?tier=gold')).status).toBe(400);
  });

  it('serves /v1/catalog views, filtered by the project providers', async () => {
    const none = await owner.get('/v1/catalog');
    expect(none.body.data.attributes.instanceTypes).toEqual([]);
    const prov = await owner.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'k-123456' });
    const id = prov.body.data.id;
    const cat = await owner.get('/v1/catalog');
    expect(cat.body.data.attributes.instanceTypes.length).toBe(6);
    expect(cat.body.data.attributes.regions[0].providerIds).toEqual([id]);
    const all = await owner.get('/v1/catalog/all');
    expect(all.body.data.attributes.providers).toHaveLength(3);
    for (const path of ['instance-types', 'regions', 'images', 'resources']) {
      const r = await owner.get(`/v1/catalog/${path}?providerId=${id}&limit=100`);
      expect(r.status).toBe(200);
      expect(r.body.data.every((x: { attributes: { providerKind: string } }) => x.attributes.providerKind === 'provider_publiccloud')).toBe(true);
    }
    const missing = await owner.get('/v1/catalog/images?providerId=0190aaaa-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('PROVIDER_NOT_FOUND');
    expect((await owner.get('/v1/catalog/resources/pc-g5-xlarge')).body.data.attributes.resourceType).toBe('instance-type');
    expect((await owner.get('/v1/catalog/resources/nothing')).status).toBe(404);
    const region = await owner.get('/v1/catalog/regions/us-east-1');
    expect(region.body.data.attributes.zones).toEqual(['us-east-1-a', 'us-east-1-b', 'us-east-1-c']);
    expect(region.body.data.attributes.providers.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await owner.get('/v1/catalog/regions/nowhere')).status).toBe(404);
    const avail = await owner.get('/v1/catalog/availability?plan=pc-p5-48xlarge&available=true');
    expect(avail.body.data.map((a: { attributes: { region: string } }) => a.attributes.region).sort()).toEqual(['us-east-1', 'us-west-2']);
    // A disabled provider offers nothing: its catalog reads answer 404 as a create naming it would.
    expect((await owner.patch(`/v1/providers/${id}`, { enabled: false })).status).toBe(200);
    for (const path of ['instance-types', 'regions', 'images', 'resources']) {
      const r = await owner.get(`/v1/catalog/${path}?providerId=${id}`);
      expect([path, r.status, r.body.errors?.[0]?.code]).toEqual([path, 404, 'PROVIDER_NOT_FOUND']);
    }
    expect((await owner.patch(`/v1/providers/${id}`, { enabled: true })).status).toBe(200);
    expect((await owner.get(`/v1/catalog/images?providerId=${id}`)).status).toBe(200);
  });

  it('needs a project credential', async () => {
    expect((await srv.anonymous.get('/v1/plans')).status).toBe(401);
  });

  it('validates compute requests with 422-coded errors', async () => {
    const v = new CatalogValidation(srv.platform);
    const ok = await v.validateCompute({ providerKind: 'provider_baremetal', region: 'NYC', instanceType: 'c3-medium-x86', image: 'ubuntu_24_04_x64_lts' });
    expect(ok.plan.slug).toBe('c3-medium-x86');
    expect(ok.image?.osSlug).toBe('ubuntu_24_04_x64_lts');
    await expect(v.validateCompute({ providerKind: 'provider_baremetal', region: 'MARS', instanceType: 'c3-medium-x86' })).rejects.toMatchObject({ code: 'INVALID_REGION', message: 'Unknown region/site: MARS' });
    await expect(v.validateCompute({ providerKind: 'provider_baremetal', region: 'NYC', instanceType: 'huge' })).rejects.toMatchObject({ code: 'INVALID_PLAN' });
    await expect(v.validateCompute({ providerKind: 'provider_baremetal', region: 'LOS', instanceType: 'm3-xlarge-x86' })).rejects.toMatchObject({ code: 'INVALID_PLAN' });
    await expect(v.validateCompute({ providerKind: 'provider_baremetal', region: 'NYC', instanceType: 'c3-medium-x86', image: 'plan9' })).rejects.toMatchObject({ code: 'INVALID_OS' });
    expect((await v.resolveSite('LAX')).city).toBe('Los Angeles');
    expect((await v.resolvePlan(catalogId('plan', 'mc-cpu-8'))).providerKind).toBe('provider_multicloud');
    const gpu = await v.resolvePlan('g3-a100-x8');
    await expect(v.resolveOs('nope', gpu)).rejects.toMatchObject({ code: 'INVALID_OS' });
    expect((await v.resolveOs('ubuntu_24_04_x64_lts', gpu)).slug).toBe('ubuntu_24_04_x64_lts');
    await expect(v.resolveOs('windows_2022', gpu)).rejects.toMatchObject({ code: 'INVALID_OS', message: 'Operating system windows_2022 is not offered for bare-metal-gpu plans such as g3-a100-x8' });
    // Offered by the bare-metal provider only: not for a public-cloud plan.
    await expect(v.resolveOs('flatcar_stable', await v.resolvePlan('pc-t3-medium'))).rejects.toMatchObject({ code: 'INVALID_OS' });
  });
});
