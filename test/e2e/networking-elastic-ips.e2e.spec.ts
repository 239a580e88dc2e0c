import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { activeInstance, activeServer, failingCreates, jobUntil, listsAndFilters, strangerOf, until } from './networking.support';

describe.each<Profile>(['embedded', 'server'])('networking: elastic IPs (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let metal: string;
  let multi: string;
  const path = '/v1/networking/elastic-ips';
  const inCloud = `${path}?providerId=`;

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-eip' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-eip-metal' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-eip-multi' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const create = async (body: Record<string, unknown> = { region: 'us-east-1' }) => {
    const res = await api.post(`${inCloud}${cloud}`, body);
    expect(res.status).toBe(202);
    await until(api, `${path}/${res.body.data.id}`, 'active');
    return res.body.data.id as string;
  };

  it('allocates an address as an elastic-ip.create job, moves it between targets of its region, and releases it', async () => {
    const res = await api.post(`${inCloud}${cloud}`, { region: 'us-east-1', name: 'front' });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'elastic-ips', attributes: { name: 'front', region: 'us-east-1', status: 'creating', providerId: cloud, targetId: null, address: null } });
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('elastic-ip.create');
    const id = res.body.data.id;
    const active = await until(api, `${path}/${id}`, 'active');
    expect(active.body.data.attributes.address).toMatch(/^(192\.0\.2|198\.51\.100|203\.0\.113)\.\d+$/);

    const [a, b] = [await activeInstance(api, cloud, 'eip-a'), await activeInstance(api, cloud, 'eip-b')];
    const move = await api.post(`${path}/${id}/move`, { targetType: 'instance', targetId: a });
    expect(move.status).toBe(202);
    expect(move.body.data.attributes.status).toBe('moving');
    expect((await api.get(`/v1/jobs/${move.body.jobId}`)).body.data.attributes.type).toBe('elastic-ip.move');
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes).toMatchObject({ targetType: 'instance', targetId: a });
    const again = await api.post(`${path}/${id}/move`, { targetType: 'instance', targetId: a });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('CONFLICT');
    // At most one target: a move to another replaces the first.
    expect((await api.post(`${path}/${id}/move`, { targetType: 'instance', targetId: b })).status).toBe(202);
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes).toMatchObject({ targetType: 'instance', targetId: b });

    const del = await api.delete(`${path}/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('deleting');
    expect((await api.get(`/v1/jobs/${del.body.jobId}`)).body.data.attributes.type).toBe('elastic-ip.delete');
    await jobUntil(api, del.body.jobId, 'completed');
    expect((await api.get(`${path}/${id}`)).status).toBe(404);
  });

  it('refuses targets elsewhere: another region (422), no such target (404 on the field), another project (404)', async () => {
    const id = await create();
    const server = await activeServer(api, 'eip-metal');
    const far = await api.post(`${path}/${id}/move`, { targetType: 'server', targetId: server });
    expect(far.status).toBe(422);
    expect(far.body.errors[0].code).toBe('INVALID_REGION');
    const missing = await api.post(`${path}/${id}/move`, { targetType: 'instance', targetId: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].source.pointer).toBe('/targetId');
    const badType = await api.post(`${path}/${id}/move`, { targetType: 'volume', targetId: server });
    expect(badType.status).toBe(400);
    expect(badType.body.errors[0].source.pointer).toBe('/targetType');
    const stranger = await strangerOf(srv);
    expect((await stranger.get(`${path}/${id}`)).status).toBe(404);
    expect((await stranger.post(`${path}/${id}/move`, { targetType: 'server', targetId: server })).status).toBe(404);
    expect((await stranger.delete(`${path}/${id}`)).status).toBe(404);
    expect((await api.get(`${path}/${id}?providerId=${metal}`)).status).toBe(404);
    expect((await api.get(`${path}/${id}`)).body.data.attributes.status).toBe('active');
  });

  it('validates creates: 400 with the pointer, 422 for a region the provider lacks, provider choice and UNSUPPORTED_PROVIDER', async () => {
    const noRegion = await api.post(`${inCloud}${cloud}`, {});
    expect(noRegion.status).toBe(400);
    expect(noRegion.body.errors[0].source.pointer).toBe('/region');
    const longName = await api.post(`${inCloud}${cloud}`, { region: 'us-east-1', name: 'x'.repeat(65) });
    expect(longName.body.errors[0].source.pointer).toBe('/name');
    const region = await api.post(`${inCloud}${cloud}`, { region: 'NYC' });
    expect(region.status).toBe(422);
    expect(region.body.errors[0].code).toBe('INVALID_REGION');
    // Two providers offer elastic IPs: the client must choose.
    const ambiguous = await api.post(path, { region: 'us-east-1' });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.errors[0].source.parameter).toBe('providerId');
    const unsupported = await api.post(`${inCloud}${multi}`, { region: 'us-east' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
    expect((await api.post(`${inCloud}no-such-provider`, { region: 'us-east-1' })).status).toBe(404);
  });

  it('two moves of one IP at the same moment: exactly one wins, the other gets 409', async () => {
    // A slow provider keeps the first move running while the second arrives (with zero latency it could finish first).
    const id = await create({ region: 'us-east-1', tags: { simulate: 'slow:1500' } });
    const [a, b] = await Promise.all([activeInstance(api, cloud, 'race-a'), activeInstance(api, cloud, 'race-b')]);
    const answers = await Promise.all([a, b].map((t) => api.post(`${path}/${id}/move`, { targetType: 'instance', targetId: t })));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    const winner = answers[0].status === 202 ? a : b;
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes.targetId).toBe(winner);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    await failingCreates(api, clock, path, { region: 'us-east-1' }, 'elastic-ip', `?providerId=${cloud}`);
  });

  it('lists with pagination and the status, region and providerId filters', async () => {
    const ids = [await create(), await create()];
    const metalIp = await api.post(`${inCloud}${metal}`, { region: 'NYC' });
    expect(metalIp.status).toBe(202);
    await listsAndFilters(api, path, { ids, region: 'us-east-1', otherRegion: 'NYC', providerId: cloud, otherProviderId: metal });
  });
});
