import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { activeInstance, activeServer, failingCreates, jobUntil, listsAndFilters, strangerOf, until } from './networking.support';

describe.each<Profile>(['embedded', 'server'])('networking: VLANs (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let metal: string;
  const path = '/v1/networking/vlans';
  const lan = { name: 'lan', region: 'NYC', cidr: '10.20.0.0/24' };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-vlan' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-vlan-metal' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const create = async (body: Record<string, unknown> = lan) => {
    const res = await api.post(path, body);
    expect(res.status).toBe(202);
    await until(api, `${path}/${res.body.data.id}`, 'active');
    return res.body.data.id as string;
  };

  it('creates on the only provider with VLANs, assigns a server, refuses its delete until detached', async () => {
    const res = await api.post(path, lan);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'vlans', attributes: { ...lan, status: 'creating', providerId: metal, targets: [], vid: null } });
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('vlan.create');
    const id = res.body.data.id;
    const vid = (await until(api, `${path}/${id}`, 'active')).body.data.attributes.vid;
    expect(vid).toBeGreaterThanOrEqual(2);
    expect(vid).toBeLessThanOrEqual(4094);

    const server = await activeServer(api, 'vlan-host');
    const assign = await api.post(`${path}/${id}/assign`, { targetType: 'server', targetId: server });
    expect(assign.status).toBe(202);
    expect(assign.body.data.attributes.status).toBe('attaching');
    expect((await api.get(`/v1/jobs/${assign.body.jobId}`)).body.data.attributes.type).toBe('vlan.assign');
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes.targets).toEqual([{ targetType: 'server', targetId: server }]);
    expect((await api.post(`${path}/${id}/assign`, { targetType: 'server', targetId: server })).status).toBe(409);
    const busy = await api.delete(`${path}/${id}`);
    expect(busy.status).toBe(409);
    expect(busy.body.errors[0].code).toBe('INVALID_STATE');

    const detach = await api.post(`${path}/${id}/detach`, { targetType: 'server', targetId: server });
    expect(detach.status).toBe(202);
    expect(detach.body.data.attributes.status).toBe('detaching');
    expect((await api.get(`/v1/jobs/${detach.body.jobId}`)).body.data.attributes.type).toBe('vlan.detach');
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes.targets).toEqual([]);
    const notThere = await api.post(`${path}/${id}/detach`, { targetType: 'server', targetId: server });
    expect(notThere.status).toBe(409);

    const del = await api.delete(`${path}/${id}`);
    expect(del.status).toBe(202);
    await jobUntil(api, del.body.jobId, 'completed');
    expect((await api.get(`${path}/${id}`)).status).toBe(404);
  });

  it('validates: the CIDR (400 on /cidr), the region (422), the provider (UNSUPPORTED_PROVIDER), targets (422, 404), other projects (404)', async () => {
    for (const cidr of ['10.20.0.1/24', '8.8.8.0/24', 'not-a-cidr', '10.0.0.0/33']) {
      const bad = await api.post(path, { ...lan, cidr });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].source.pointer).toBe('/cidr');
    }
    expect((await api.post(path, { ...lan, cidr: 'fd12:3456::/48' })).status).toBe(202);
    const region = await api.post(path, { ...lan, region: 'us-east-1' });
    expect(region.status).toBe(422);
    expect(region.body.errors[0].code).toBe('INVALID_REGION');
    const unsupported = await api.post(`${path}?providerId=${cloud}`, lan);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');

    const id = await create();
    const instance = await activeInstance(api, cloud, 'vlan-far');
    const far = await api.post(`${path}/${id}/assign`, { targetType: 'instance', targetId: instance });
    expect(far.status).toBe(422);
    expect(far.body.errors[0].code).toBe('INVALID_REGION');
    const missing = await api.post(`${path}/${id}/assign`, { targetType: 'server', targetId: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].source.pointer).toBe('/targetId');
    expect((await api.post(`${path}/${id}/detach`, { targetType: 'server', targetId: 'nope' })).status).toBe(404);
    expect((await api.post(`${path}/${id}/assign`, {})).status).toBe(400);
    const stranger = await strangerOf(srv);
    expect((await stranger.get(`${path}/${id}`)).status).toBe(404);
    expect((await stranger.post(`${path}/${id}/assign`, { targetType: 'instance', targetId: instance })).status).toBe(404);
    expect((await api.get(`${path}/${id}`)).body.data.attributes).toMatchObject({ status: 'active', targets: [] });
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    await failingCreates(api, clock, path, lan, 'vlan');
  });

  it('lists with pagination and the status, region and providerId filters', async () => {
    const ids = [await create(), await create({ ...lan, cidr: '10.21.0.0/24' })];
    await listsAndFilters(api, path, { ids, region: 'NYC', otherRegion: 'AMS', providerId: metal, otherProviderId: cloud });
  });
});
