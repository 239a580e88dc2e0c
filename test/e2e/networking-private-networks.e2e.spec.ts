import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { activeInstance, activeServer, failingCreates, jobUntil, listsAndFilters, strangerOf, until } from './networking.support';

describe.each<Profile>(['embedded', 'server'])('networking: private networks (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let metal: string;
  let multi: string;
  const base = '/v1/networking/private-networks';
  let path: string;
  let next = 100;
  /** A range no other test of this file uses: 10.<n>.0.0/16. */
  const fresh = () => `10.${next++}.0.0/16`;

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-pn' })).body.data.id;
    metal = (await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-pn-metal' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-pn-multi' })).body.data.id;
    path = `${base}?providerId=${cloud}`;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const create = async (cidr = fresh(), region = 'us-east-1') => {
    const res = await api.post(path, { name: 'net', region, cidr });
    expect(res.status).toBe(202);
    await until(api, `${base}/${res.body.data.id}`, 'active');
    return res.body.data.id as string;
  };

  it('creates as a private-network.create job, attaches an instance of its region, and deletes', async () => {
    const res = await api.post(path, { name: 'backend', region: 'us-east-1', cidr: '10.1.0.0/16' });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'private-networks', attributes: { name: 'backend', region: 'us-east-1', cidr: '10.1.0.0/16', status: 'creating', providerId: cloud, targets: [] } });
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('private-network.create');
    const id = res.body.data.id;
    await until(api, `${base}/${id}`, 'active');

    const instance = await activeInstance(api, cloud, 'pn-a');
    const attach = await api.post(`${base}/${id}/attach`, { targetType: 'instance', targetId: instance });
    expect(attach.status).toBe(202);
    expect(attach.body.data.attributes.status).toBe('attaching');
    expect((await api.get(`/v1/jobs/${attach.body.jobId}`)).body.data.attributes.type).toBe('private-network.attach');
    expect((await until(api, `${base}/${id}`, 'active')).body.data.attributes.targets).toEqual([{ targetType: 'instance', targetId: instance }]);
    const twice = await api.post(`${base}/${id}/attach`, { targetType: 'instance', targetId: instance });
    expect(twice.status).toBe(409);
    expect(twice.body.errors[0].code).toBe('CONFLICT');

    const server = await activeServer(api, 'pn-metal');
    const far = await api.post(`${base}/${id}/attach`, { targetType: 'server', targetId: server });
    expect(far.status).toBe(422);
    expect(far.body.errors[0].code).toBe('INVALID_REGION');
    const missing = await api.post(`${base}/${id}/attach`, { targetType: 'instance', targetId: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].source.pointer).toBe('/targetId');

    const del = await api.delete(`${base}/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('deleting');
    expect((await api.get(`/v1/jobs/${del.body.jobId}`)).body.data.attributes.type).toBe('private-network.delete');
    await jobUntil(api, del.body.jobId, 'completed');
    expect((await api.get(`${base}/${id}`)).status).toBe(404);
    // Its range is free again.
    expect((await api.post(path, { name: 'again', region: 'us-east-1', cidr: '10.1.0.0/16' })).status).toBe(202);
  });

  it('refuses an overlap in the same region of the project (409 on /cidr), not elsewhere', async () => {
    await create('10.50.0.0/16');
    for (const cidr of ['10.50.128.0/17', '10.0.0.0/8', '10.50.0.0/16']) {
      const clash = await api.post(path, { name: 'clash', region: 'us-east-1', cidr });
      expect(clash.status).toBe(409);
      expect(clash.body.errors[0].code).toBe('CONFLICT');
      expect(clash.body.errors[0].source.pointer).toBe('/cidr');
    }
    expect((await api.post(path, { name: 'beside', region: 'us-east-1', cidr: '10.51.0.0/16' })).status).toBe(202);
    expect((await api.post(path, { name: 'far', region: 'eu-west-2', cidr: '10.50.0.0/16' })).status).toBe(202);
    const stranger = await strangerOf(srv);
    const theirs = (await stranger.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-pn-2' })).body.data.id;
    expect((await stranger.post(`${base}?providerId=${theirs}`, { name: 'same', region: 'us-east-1', cidr: '10.50.0.0/16' })).status).toBe(202);
  });

  it('accepts exactly one of racing overlapping creates in a region (the others 409 on /cidr), whatever the read model has seen', async () => {
    for (const round of [0, 1, 2]) {
      // Pairwise overlapping: each holds 10.<n>.0.0.
      const cidrs = ['16', '17', '18', '16', '20', '24'].map((bits) => `10.${70 + round}.0.0/${bits}`);
      const answers = await Promise.all(cidrs.map((cidr, i) => api.post(path, { name: `race-${round}-${i}`, region: 'us-east-1', cidr })));
      const won = answers.filter((a) => a.status === 202);
      expect(won).toHaveLength(1);
      for (const lost of answers.filter((a) => a.status !== 202)) expect([lost.status, lost.body.errors[0].code, lost.body.errors[0].source.pointer]).toEqual([409, 'CONFLICT', '/cidr']);
      await until(api, `${base}/${won[0]!.body.data.id}`, 'active');
    }
  });

  it('frees a range reserved for a network that was never created, once the reservation is 30 s old (a crash between the two writes)', async () => {
    const projectId = srv.bootstrap.scope;
    const orphan = randomUUID();
    const at = new Date(clock.now()).toISOString();
    await srv.platform.events.append(`pnetranges-${projectId}-us-east-1`, [{ id: randomUUID(), type: 'networking.PrivateNetworkRangeReserved.v1', data: { projectId, region: 'us-east-1', networkId: orphan, cidr: '10.80.0.0/16', reservedAt: at }, metadata: { schemaVersion: 1, projectId, actor: 'test' } }], { expectedRevision: 'any' });
    const early = await api.post(path, { name: 'early', region: 'us-east-1', cidr: '10.80.0.0/24' });
    expect([early.status, early.body.errors[0].code]).toEqual([409, 'CONFLICT']);
    expect(early.body.errors[0].detail).toContain(orphan);
    clock.advance(31_000);
    const later = await api.post(path, { name: 'later', region: 'us-east-1', cidr: '10.80.0.0/24' });
    expect(later.status).toBe(202);
    const ledger = (await srv.platform.events.readStream(`pnetranges-${projectId}-us-east-1`)).map((e) => [e.type, e.data.networkId]);
    expect(ledger.slice(-2)).toEqual([['networking.PrivateNetworkRangeReleased.v1', orphan], ['networking.PrivateNetworkRangeReserved.v1', later.body.data.id]]);
  });

  it('validates: private CIDRs with zero host bits (400 on /cidr), regions (422), provider choice and UNSUPPORTED_PROVIDER, other projects (404)', async () => {
    for (const cidr of ['100.64.0.0/16', '10.60.0.1/16', 'fe80::/10']) {
      const bad = await api.post(path, { name: 'bad', region: 'us-east-1', cidr });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].source.pointer).toBe('/cidr');
    }
    expect((await api.post(path, { name: 'v6', region: 'us-east-1', cidr: 'fd00:60::/48' })).status).toBe(202);
    const region = await api.post(path, { name: 'x', region: 'NYC', cidr: fresh() });
    expect(region.status).toBe(422);
    expect(region.body.errors[0].code).toBe('INVALID_REGION');
    const ambiguous = await api.post(base, { name: 'x', region: 'us-east-1', cidr: fresh() });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.errors[0].source.parameter).toBe('providerId');
    const unsupported = await api.post(`${base}?providerId=${multi}`, { name: 'x', region: 'us-east', cidr: fresh() });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');
    const id = await create();
    const stranger = await strangerOf(srv);
    expect((await stranger.get(`${base}/${id}`)).status).toBe(404);
    expect((await stranger.delete(`${base}/${id}`)).status).toBe(404);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    await failingCreates(api, clock, base, () => ({ name: 'flaky', region: 'us-east-1', cidr: fresh() }), 'private-network', `?providerId=${cloud}`);
  });

  it('lists with pagination and the status, region and providerId filters', async () => {
    const ids = [await create(), await create()];
    const onMetal = await api.post(`${base}?providerId=${metal}`, { name: 'metal', region: 'NYC', cidr: fresh() });
    expect(onMetal.status).toBe(202);
    await listsAndFilters(api, base, { ids, region: 'us-east-1', otherRegion: 'NYC', providerId: cloud, otherProviderId: metal });
  });
});
