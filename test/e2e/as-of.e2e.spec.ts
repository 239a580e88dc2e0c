import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';

type Api = ReturnType<TestServer['as']>;
type Snapshot = { at: string; data: unknown };

/**
 * `?asOf=` (DECISIONS 20): for every sampled instant of a resource's history, the resource as of that
 * instant equals what its read model answered once the events up to it were applied. Each step
 * changes a resource, waits for the read model to settle, and records (the commit time of its last
 * event, the plain GET); afterwards every record is asked again with asOf.
 */
describe.each<Profile>(['embedded', 'server'])('asOf on single-resource GETs (%s profile)', (profile) => {
  let srv: TestServer;
  let api: Api;
  let providerId: string;
  const history = new Map<string, { stream: string; snapshots: Snapshot[] }>();

  /** Waits until the GET answers `settled`, then records it at the commit time of the stream's newest event. */
  const snapshot = async (path: string, stream: string, settled: (data: any) => boolean) => {
    const res = await eventually(() => api.get(path), (r) => r.status === 200 && settled(r.body.data));
    const events = await srv.platform.events.readStream(stream);
    const entry = history.get(path) ?? { stream, snapshots: [] };
    entry.snapshots.push({ at: new Date(events[events.length - 1]!.recordedAt).toISOString(), data: res.body.data });
    history.set(path, entry);
  };

  beforeAll(async () => {
    srv = await startTestServer(profile, { SIMULATOR_LATENCY: 'zero' });
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    const owner = await bootstrap.post('/v1/api-keys', { name: 'owner', role: 'owner', mode: 'live' });
    api = srv.as(owner.body.data.attributes.key);
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-as-of' });
    expect(provider.status).toBe(201);
    providerId = provider.body.data.id;

    // Providers stand in for API keys, which have no single-resource GET.
    await snapshot(`/v1/providers/${providerId}`, `provider-${providerId}`, () => true);
    expect((await api.patch(`/v1/providers/${providerId}`, { enabled: false })).status).toBe(200);
    await snapshot(`/v1/providers/${providerId}`, `provider-${providerId}`, (d) => d.attributes.enabled === false);
    expect((await api.patch(`/v1/providers/${providerId}`, { enabled: true })).status).toBe(200);
    await snapshot(`/v1/providers/${providerId}`, `provider-${providerId}`, (d) => d.attributes.enabled === true);

    const invoice = await api.post('/v1/invoices', { currency: 'USD', amountCents: 1000, dueDate: '2030-01-31', lineItems: [{ description: 'Compute', quantity: 2, unitPriceCents: 500 }] });
    expect(invoice.status).toBe(201);
    await snapshot(`/v1/invoices/${invoice.body.data.id}`, `invoice-${invoice.body.data.id}`, () => true);

    const volume = await api.post('/v1/storage/volumes', { name: 'data', sizeGb: 50, region: 'us-east-1', providerId });
    expect(volume.status).toBe(202);
    const volumeId = volume.body.data.id;
    const volumeStream = (await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100_000 })).find((e) => e.streamId.endsWith(volumeId))!.streamId;
    await snapshot(`/v1/storage/volumes/${volumeId}`, volumeStream, (d) => d.attributes.status === 'available');

    const instance = await api.post('/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'web-1', providerId });
    expect(instance.status).toBe(202);
    const id = instance.body.data.id;
    await snapshot(`/v1/instances/${id}`, `instance-${id}`, (d) => d.attributes.status === 'active');
    expect((await api.post(`/v1/instances/${id}/actions`, { action: 'stop' })).status).toBe(202);
    await snapshot(`/v1/instances/${id}`, `instance-${id}`, (d) => d.attributes.status === 'stopped');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers each resource as its read model was after the events up to each sampled instant', async () => {
    expect([...history.keys()].map((p) => p.split('/')[2])).toEqual(['providers', 'invoices', 'storage', 'instances']);
    for (const [path, { snapshots }] of history) {
      for (const { at, data } of snapshots) {
        const res = await api.get(`${path}?asOf=${encodeURIComponent(at)}`);
        expect([path, at, res.status, res.body.data]).toEqual([path, at, 200, data]);
      }
      // The past is never kept for the present: the plain GET still answers the read model as it is.
      expect([path, (await api.get(path)).body.data]).toEqual([path, snapshots[snapshots.length - 1]!.data]);
    }
  });

  it('compares instants in UTC whatever their offset, and answers 404 before the resource existed', async () => {
    for (const [path, { stream, snapshots }] of history) {
      const [first] = await srv.platform.events.readStream(stream);
      const born = new Date(first!.recordedAt).getTime();
      const inOffset = (ms: number) => new Date(ms - 5 * 3600_000).toISOString().replace('Z', '-05:00');
      expect([path, (await api.get(`${path}?asOf=${encodeURIComponent(inOffset(born - 1))}`)).status]).toEqual([path, 404]);
      const last = snapshots[snapshots.length - 1]!;
      const res = await api.get(`${path}?asOf=${encodeURIComponent(inOffset(new Date(last.at).getTime()))}`);
      expect([path, res.body.data]).toEqual([path, last.data]);
    }
  });

  it('answers 400 INVALID_QUERY for an asOf that is not an instant', async () => {
    const [path] = history.keys();
    const res = await api.get(`${path}?asOf=yesterday`);
    expect([res.status, res.body.errors?.[0]?.code]).toEqual([400, 'INVALID_QUERY']);
  });
});
