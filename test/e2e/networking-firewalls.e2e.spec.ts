import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { activeInstance, activeServer, failingCreates, jobUntil, strangerOf, until } from './networking.support';

describe.each<Profile>(['embedded', 'server'])('networking: firewalls (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let cloud: string;
  let multi: string;
  const path = '/v1/networking/firewalls';
  const ssh = { direction: 'inbound', protocol: 'tcp', port: 22, source: '0.0.0.0/0' };
  const ping = { direction: 'inbound', protocol: 'icmp', source: '10.0.0.0/8' };
  const web = { name: 'web', rules: [ssh] };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' }, { clock });
    api = srv.as(srv.bootstrap.apiKey);
    cloud = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-fw' })).body.data.id;
    multi = (await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-fw-multi' })).body.data.id;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const create = async (body: Record<string, unknown> = web) => {
    const res = await api.post(path, body);
    expect(res.status).toBe(202);
    await until(api, `${path}/${res.body.data.id}`, 'active');
    return res.body.data.id as string;
  };

  it('creates, replaces its rules by PATCH (a firewall.update job; the rules change when it completes), assigns, deletes', async () => {
    const res = await api.post(path, web);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ type: 'firewalls', attributes: { ...web, status: 'creating', providerId: cloud, targets: [] } });
    expect(res.body.data.attributes).not.toHaveProperty('region');
    expect((await api.get(`/v1/jobs/${res.body.jobId}`)).body.data.attributes.type).toBe('firewall.create');
    const id = res.body.data.id;
    await until(api, `${path}/${id}`, 'active');

    const update = await api.patch(`${path}/${id}`, { rules: [ssh, ping] });
    expect(update.status).toBe(202);
    expect(update.body.data.attributes).toMatchObject({ status: 'updating', rules: [ssh] });
    expect((await api.get(`/v1/jobs/${update.body.jobId}`)).body.data.attributes.type).toBe('firewall.update');
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes.rules).toEqual([ssh, ping]);

    // No region: instances and servers anywhere in the project.
    const [instance, server] = [await activeInstance(api, cloud, 'fw-a', 'eu-west-2'), await activeServer(api, 'fw-metal')];
    for (const target of [{ targetType: 'instance', targetId: instance }, { targetType: 'server', targetId: server }]) {
      const assign = await api.post(`${path}/${id}/assign`, target);
      expect(assign.status).toBe(202);
      expect(assign.body.data.attributes.status).toBe('attaching');
      expect((await api.get(`/v1/jobs/${assign.body.jobId}`)).body.data.attributes.type).toBe('firewall.assign');
      await until(api, `${path}/${id}`, 'active');
    }
    expect((await api.get(`${path}/${id}`)).body.data.attributes.targets).toEqual([{ targetType: 'instance', targetId: instance }, { targetType: 'server', targetId: server }]);
    expect((await api.post(`${path}/${id}/assign`, { targetType: 'instance', targetId: instance })).status).toBe(409);

    const del = await api.delete(`${path}/${id}`);
    expect(del.status).toBe(202);
    expect(del.body.data.attributes.status).toBe('deleting');
    await jobUntil(api, del.body.jobId, 'completed');
    expect((await api.get(`${path}/${id}`)).status).toBe(404);
  });

  it('applies both name and rules of a PATCH (DECISIONS 14), or either alone; an empty PATCH is 400', async () => {
    const id = await create({ ...web, name: 'fw-before' });
    const both = await api.patch(`${path}/${id}`, { name: 'fw-after', rules: [ping] });
    expect(both.status).toBe(202);
    expect((await jobUntil(api, both.body.jobId, 'completed')).status).toBe(200);
    const done = await until(api, `${path}/${id}`, 'active');
    expect(done.body.data.attributes).toMatchObject({ name: 'fw-after', rules: [ping] });
    const listed = (await api.get(`${path}?limit=100`)).body.data.find((x: { id: string }) => x.id === id);
    expect(listed.attributes).toMatchObject({ name: 'fw-after', rules: [ping] });

    const renamed = await api.patch(`${path}/${id}`, { name: 'fw-renamed' });
    expect(renamed.status).toBe(202);
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes).toMatchObject({ name: 'fw-renamed', rules: [ping] });
    const ruled = await api.patch(`${path}/${id}`, { rules: [ssh] });
    expect(ruled.status).toBe(202);
    expect((await until(api, `${path}/${id}`, 'active')).body.data.attributes).toMatchObject({ name: 'fw-renamed', rules: [ssh] });

    const empty = await api.patch(`${path}/${id}`, {});
    expect(empty.status).toBe(400);
    expect((await api.patch(`${path}/${id}`, { name: '' })).body.errors[0].source.pointer).toBe('/name');
  });

  it('validates rules with pointers, and refuses a PATCH or an assign while another job runs (409)', async () => {
    const noPort = await api.post(path, { name: 'x', rules: [{ ...ssh, port: undefined }] });
    expect(noPort.status).toBe(400);
    expect(noPort.body.errors[0].source.pointer).toBe('/rules/0/port');
    const icmpPort = await api.post(path, { name: 'x', rules: [ping, { ...ping, port: 7 }] });
    expect(icmpPort.body.errors[0].source.pointer).toBe('/rules/1/port');
    const source = await api.post(path, { name: 'x', rules: [{ ...ssh, source: '10.0.0.1/8' }] });
    expect(source.body.errors[0].source.pointer).toBe('/rules/0/source');
    const many = await api.post(path, { name: 'x', rules: Array.from({ length: 101 }, () => ping) });
    expect(many.status).toBe(400);
    expect(many.body.errors[0].source.pointer).toBe('/rules');
    expect((await api.post(path, { name: 'x', rules: Array.from({ length: 100 }, () => ping) })).status).toBe(202);
    const unsupported = await api.post(`${path}?providerId=${multi}`, web);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.errors[0].code).toBe('UNSUPPORTED_PROVIDER');

    const id = await create({ ...web, tags: { simulate: 'slow:1500' } });
    const bad = await api.patch(`${path}/${id}`, { rules: [{ ...ssh, direction: 'sideways' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].source.pointer).toBe('/rules/0/direction');
    const [a, b] = await Promise.all([api.patch(`${path}/${id}`, { rules: [ping] }), api.patch(`${path}/${id}`, { rules: [] })]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    const stranger = await strangerOf(srv);
    expect((await stranger.patch(`${path}/${id}`, { rules: [] })).status).toBe(404);
    expect((await stranger.get(`${path}/${id}`)).status).toBe(404);
    const done = await until(api, `${path}/${id}`, 'active');
    expect(done.body.data.attributes.rules).toEqual(a.status === 202 ? [ping] : []);
  });

  it('retries a failing provider, fails for good into error, and a manual retry starts it over', async () => {
    await failingCreates(api, clock, path, web, 'firewall');
  });

  it('lists with pagination and the status and providerId filters (a firewall has no region)', async () => {
    const ids = [await create(), await create()];
    const page = await api.get(`${path}?limit=1&sort=-createdAt`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.total).toBeGreaterThanOrEqual(2);
    const active = await api.get(`${path}?status=active&providerId=${cloud}&limit=100`);
    expect(active.body.data.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining(ids));
    expect((await api.get(`${path}?providerId=${multi}`)).body.data).toEqual([]);
    expect((await api.get(`${path}?region=us-east-1`)).body.data).toEqual([]);
  });
});
