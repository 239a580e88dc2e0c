import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { failingCreates, jobUntil, strangerOf, until } from './networking.support';

describe.each<Profile>(['embedded', 'server'])('networking: interconnections (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let metal: string;
  let multi: string;
  const base = '/v1/interconnections';
  let path: string;
  const link = { name: 'backbone', sourceRegion: 'us-east-1', targetRegion: 'eu-west-2', bandwidth: '10Gbps' };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-ic' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-ic-metal' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-ic-multi' })).body.data.id;
    path = `${base}?providerId=${cloud}`;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('creates as an interconnection.create job, gets and lists it, and deletes it', async () => {
    const res = await api.post(path, link);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'interconnections', attributes: { ...link, status: 'creating', providerId: cloud } });
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('interconnection.create');
    const id = res.body.data.id;
    await until(api, `${base}/${id}`, 'active');
    const noBandwidth = await api.post(path, { name: 'thin', sourceRegion: 'us-east-1', targetRegion: 'eu-west-2' });
    expect(noBandwidth.status).toBe(202);
    expect(noBandwidth.body.data.attributes.bandwidth).toBeNull();

    const del = await api.delete(`${base}/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('deleting');
    expect((await api.get(`/v1/jobs/${del.body.jobId}`)).body.data.attributes.type).toBe('interconnection.delete');
    await jobUntil(api, del.body.jobId, 'completed');
    expect((await api.get(`${base}/${id}`)).status).toBe(404);
    expect((await api.delete(`${base}/${id}`)).status).toBe(404);
  });

  it('validates: equal regions (400 on /targetRegion), catalog misses (422), fields (400), providers, other projects (404)', async () => {
    const same = await api.post(path, { ...link, targetRegion: 'us-east-1' });
    expect(same.status).toBe(400);
    expect(same.body.errors[0].source.pointer).toBe('/targetRegion');
    for (const [field, value] of [['sourceRegion', 'NYC'], ['targetRegion', 'mars-1']]) {
      const miss = await api.post(path, { ...link, [field]: value });
      expect(miss.status).toBe(422);
      expect(miss.body.errors[0].code).toBe('INVALID_REGION');
    }
    for (const [field, value] of [['bandwidth', 'fast'], ['name', ''], ['sourceRegion', undefined]] as Array<[string, string | undefined]>) {
      const bad = await api.post(path, { ...link, [field]: value });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].source.pointer).toBe(`/${field}`);
    }
    const ambiguous = await api.post(base, link);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.errors[0].source.parameter).toBe('providerId');
    const unsupported = await api.post(`${base}?providerId=${multi}`, { ...link, sourceRegion: 'us-east', targetRegion: 'eu-west' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
    const mine = await api.post(path, link);
    const stranger = await strangerOf(srv);
    expect((await stranger.get(`${base}/${mine.body.data.id}`)).status).toBe(404);
    expect((await stranger.delete(`${base}/${mine.body.data.id}`)).status).toBe(404);
    expect((await api.get(`${base}/${mine.body.data.id}?providerId=${metal}`)).status).toBe(404);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    await failingCreates(api, clock, base, link, 'interconnection', `?providerId=${cloud}`);
  });

  it('lists with pagination and filters: ?region= matches either end', async () => {
    const ids: string[] = [];
    for (const body of [link, { ...link, sourceRegion: 'ap-northeast-1', targetRegion: 'us-east-1' }]) {
      const res = await api.post(path, body);
      ids.push(res.body.data.id);
      await until(api, `${base}/${res.body.data.id}`, 'active');
    }
    const onMetal = await api.post(`${base}?providerId=${metal}`, { name: 'metal', sourceRegion: 'NYC', targetRegion: 'AMS' });
    expect(onMetal.status).toBe(202);
    const listed = (q: string) => api.get(`${base}?${q}&limit=100`).then((r) => r.body.data.map((x: { id: string }) => x.id) as string[]);
    expect(await listed('region=us-east-1&status=active')).toEqual(expect.arrayContaining(ids));
    expect(await listed('region=eu-west-2')).toContain(ids[0]);
    expect(await listed('region=eu-west-2')).not.toContain(ids[1]);
    expect(await listed('region=AMS')).toEqual([onMetal.body.data.id]);
    expect(await listed(`providerId=${metal}`)).toEqual([onMetal.body.data.id]);
    expect(await listed('status=deleting')).not.toContain(ids[0]);
    const page1 = await api.get(`${base}?limit=1&sort=name`);
    const page2 = await api.get(`${base}?limit=1&page=2&sort=name`);
    expect(page1.body.data).toHaveLength(1);
    expect(page2.body.data).toHaveLength(1);
    expect(page1.body.data[0].id).not.toBe(page2.body.data[0].id);
    expect(page1.body.meta.total).toBeGreaterThanOrEqual(3);
  });
});
