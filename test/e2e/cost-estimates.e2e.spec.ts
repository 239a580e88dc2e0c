/**
 * Cost estimates (DECISIONS 22): items are validated as their creates validate them, priced with the
 * platform margin, and an estimate equals what a create with the same body then records.
 */
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

describe.each<Profile>(['embedded', 'server'])('cost estimates (%s profile)', (profile) => {
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let multi: string;
  const MARGIN = 12.5;

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' });
    api = srv.as(srv.bootstrap.apiKey);
    expect((await srv.as(srv.bootstrap.adminKey).send('PUT', '/v1/admin/config/margin', { margin: MARGIN })).status).toBe(200);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-est-cloud' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-est-multi' })).body.data.id;
    expect((await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-est-metal' })).status).toBe(201);
  }, 180_000); // an embedded start takes most of a minute on a busy machine
  afterAll(async () => {
    await srv?.stop();
  });

  const estimate = (items: unknown[]) => api.post('/v1/cost-estimates', { items });
  const firstEvent = async (stream: string): Promise<RecordedEvent> => (await srv.platform.events.readStream(stream))[0];

  const instance = () => ({ name: 'web', providerId: cloud, region: 'us-east-1', instanceType: 'pc-t3-medium' });
  const server = { name: 'db-1', hostname: 'db-1.example.com', site: 'NYC', plan: 'c3-medium-x86', operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' };
  const volume = { name: 'data', sizeGb: 75, region: 'us-east-1' };
  const bucket = { name: 'est-assets-1', region: 'us-east' };
  const cluster = { name: 'prod', region: 'us-east-1', version: '1.31.1', nodePools: [{ name: 'a', plan: 'pc-t3-medium', count: 3 }, { name: 'b', plan: 'pc-c6i-xlarge', count: 2 }] };
  const database = { name: 'orders', engine: 'postgres', version: '16', plan: 'pc-t3-medium', region: 'us-east-1' };

  it('prices with the margin, half away from zero per item, and creates or records nothing', async () => {
    const before = (await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 })).length;
    const plans = (await api.get('/v1/plans?limit=100')).body.data as { attributes: { slug: string; pricing: { USD: { hourlyCents: number } } } }[];
    const shown = (slug: string) => plans.find((p) => p.attributes.slug === slug)!.attributes.pricing.USD.hourlyCents;
    const res = await estimate([
      { resourceType: 'instance', attributes: instance(), quantity: 2 },
      { resourceType: 'volume', attributes: { ...volume, providerId: cloud } },
      { resourceType: 'bucket', attributes: { ...bucket, providerId: multi }, quantity: 2 },
    ]);
    expect(res.status).toBe(200);
    const { type, attributes } = res.body.data;
    expect(type).toBe('cost-estimates');
    expect(attributes.currency).toBe('USD');
    const [inst, vol, bkt] = attributes.items;
    // The plan as GET /v1/plans shows it (margin included), 730 hours a month.
    expect(inst).toEqual({ resourceType: 'instance', unitPrice: shown('pc-t3-medium'), quantity: 2, hourlyCents: 2 * shown('pc-t3-medium'), monthlyCents: 2 * 730 * shown('pc-t3-medium'), priceSource: 'catalog' });
    // 14 millicents per GB-hour + 12.5% = 15.75 → 16; 75 GB = 1.2 cents/h; 876 a month.
    expect(vol).toEqual({ resourceType: 'volume', unitPrice: 1.2, quantity: 1, hourlyCents: 1, monthlyCents: 876, priceSource: 'storage-rate' });
    // 685 millicents an hour + 12.5% = 770.625 → 771; two: 1.542 → 2 an hour, 1125.66 → 1126 a month.
    expect(bkt).toEqual({ resourceType: 'bucket', unitPrice: 0.771, quantity: 2, hourlyCents: 2, monthlyCents: 1126, priceSource: 'storage-rate' });
    expect(attributes.hourlyCents).toBe(inst.hourlyCents + vol.hourlyCents + bkt.hourlyCents);
    expect(attributes.monthlyCents).toBe(inst.monthlyCents + vol.monthlyCents + bkt.monthlyCents);
    // Nothing created, nothing recorded.
    expect((await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 })).length).toBe(before);
    expect((await api.get('/v1/instances')).body.meta.total).toBe(0);
    expect((await api.get('/v1/storage/volumes')).body.meta.total).toBe(0);
  });

  it('equals what a create with the same body then records, for every priced resource type', async () => {
    type Case = { resourceType: string; attributes: Record<string, unknown>; create: () => Promise<{ status: number; body: any }>; stream: (id: string) => string };
    const cases: Case[] = [
      { resourceType: 'instance', attributes: instance(), create: () => api.post('/v1/instances', instance()), stream: (id) => `instance-${id}` },
      { resourceType: 'server', attributes: server, create: () => api.post('/v1/servers', server), stream: (id) => `server-${id}` },
      { resourceType: 'volume', attributes: { ...volume, providerId: cloud }, create: () => api.post(`/v1/storage/volumes?providerId=${cloud}`, volume), stream: (id) => `volume-${id}` },
      { resourceType: 'bucket', attributes: { ...bucket, providerId: multi }, create: () => api.post(`/v1/storage/object-storage/buckets?providerId=${multi}`, bucket), stream: (id) => `bucket-${id}` },
      { resourceType: 'cluster', attributes: { ...cluster, providerId: cloud }, create: () => api.post(`/v1/kubernetes/clusters?providerId=${cloud}`, cluster), stream: (id) => `cluster-${id}` },
      { resourceType: 'database', attributes: { ...database, providerId: cloud }, create: () => api.post(`/v1/databases?providerId=${cloud}`, database), stream: (id) => `database-${id}` },
    ];
    for (const c of cases) {
      const quoted = await estimate([{ resourceType: c.resourceType, attributes: c.attributes }]);
      expect([c.resourceType, quoted.status]).toEqual([c.resourceType, 200]);
      const { resourceType, ...item } = quoted.body.data.attributes.items[0];
      expect(resourceType).toBe(c.resourceType);
      expect(item.hourlyCents).toBeGreaterThan(0);
      const created = await c.create();
      expect([c.resourceType, created.status < 300]).toEqual([c.resourceType, true]);
      const recorded = (await firstEvent(c.stream(created.body.data.id))).data as { hourlyPriceCents?: number; price?: unknown };
      if (c.resourceType === 'instance' || c.resourceType === 'server') {
        // Compute records its hourly price; a month is 730 of them.
        expect([c.resourceType, recorded.hourlyPriceCents]).toEqual([c.resourceType, item.hourlyCents]);
        expect(item.monthlyCents).toBe(item.hourlyCents * 730);
      } else {
        expect([c.resourceType, recorded.price]).toEqual([c.resourceType, { currency: 'USD', ...item }]);
      }
    }
  });

  it('answers as the create would: 400 with pointers, 404 PROVIDER_NOT_FOUND, 422 INVALID_PLAN / INVALID_REGION / INVALID_OS', async () => {
    const codeOf = async (item: unknown) => {
      const r = await estimate([item]);
      return { status: r.status, code: r.body.errors?.[0]?.code, pointer: r.body.errors?.[0]?.source?.pointer };
    };
    expect(await codeOf({ resourceType: 'volume', attributes: { ...volume, sizeGb: 0, providerId: cloud } })).toEqual({ status: 400, code: 'BAD_REQUEST', pointer: '/items/0/attributes/sizeGb' });
    expect(await codeOf({ resourceType: 'instance', attributes: { ...instance(), name: undefined } })).toMatchObject({ status: 400, pointer: '/items/0/attributes/name' });
    expect(await codeOf({ resourceType: 'instance', attributes: { ...instance(), providerId: 'nope' } })).toMatchObject({ status: 404, code: 'PROVIDER_NOT_FOUND' });
    expect(await codeOf({ resourceType: 'volume', attributes: { ...volume, providerId: 'nope' } })).toMatchObject({ status: 404, code: 'PROVIDER_NOT_FOUND' });
    expect(await codeOf({ resourceType: 'instance', attributes: { ...instance(), instanceType: 'huge' } })).toMatchObject({ status: 422, code: 'INVALID_PLAN' });
    expect(await codeOf({ resourceType: 'instance', attributes: { ...instance(), region: 'atlantis' } })).toMatchObject({ status: 422, code: 'INVALID_REGION' });
    expect(await codeOf({ resourceType: 'instance', attributes: { ...instance(), image: 'beos' } })).toMatchObject({ status: 422, code: 'INVALID_OS' });
    expect(await codeOf({ resourceType: 'server', attributes: { ...server, operating_system: 'beos' } })).toMatchObject({ status: 422, code: 'INVALID_OS' });
    expect(await codeOf({ resourceType: 'cluster', attributes: { ...cluster, providerId: cloud, nodePools: [{ plan: 'nope', count: 1 }] } })).toMatchObject({ status: 422, code: 'INVALID_PLAN', pointer: '/items/0/attributes/nodePools/0/plan' });
    expect(await codeOf({ resourceType: 'database', attributes: { ...database, region: 'atlantis', providerId: cloud } })).toMatchObject({ status: 422, code: 'INVALID_REGION' });
    expect(await codeOf({ resourceType: 'bucket', attributes: { ...bucket, providerId: multi, name: 'Not_A_Bucket' } })).toMatchObject({ status: 400, pointer: '/items/0/attributes/name' });
    expect(await codeOf({ resourceType: 'snapshot', attributes: {} })).toMatchObject({ status: 400, pointer: '/items/0/resourceType' });
    const tooMany = await estimate(Array.from({ length: 101 }, () => ({ resourceType: 'bucket', attributes: { ...bucket, providerId: multi } })));
    expect(tooMany.status).toBe(400);
    expect((await estimate([])).status).toBe(400);
    // Pricing changes nothing: a viewer may price.
    const viewer = (await api.post('/v1/api-keys', { name: 'viewer', role: 'viewer' })).body.data.attributes.key;
    expect((await srv.as(viewer).post('/v1/cost-estimates', { items: [{ resourceType: 'volume', attributes: { ...volume, providerId: cloud } }] })).status).toBe(200);
  });
});
