import { requireEngine } from '../engines';
import { readTopicUntil } from '../support/kafka';
import { startTestServer, type TestServer } from '../support/test-server';

describe('storage events reach cloud.storage.events.v1 (server profile)', () => {
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;

  beforeAll(async () => {
    srv = await startTestServer('server', { SIMULATOR_LATENCY: 'zero' });
    api = srv.as(srv.bootstrap.apiKey);
    expect((await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-storage-topic' })).status).toBe(201);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("publishes a volume's and a bucket's lifecycle keyed by their streams; the topic holds storage streams only", async () => {
    const volume = await api.post('/v1/storage/volumes', { name: 'data', sizeGb: 10, region: 'us-east-1' });
    const bucket = await api.post('/v1/storage/object-storage/buckets', { name: `topic-${srv.env.KAFKA_TOPIC_PREFIX}`.toLowerCase(), region: 'us-east-1' });
    expect([volume.status, bucket.status]).toEqual([202, 202]);
    const [v, b] = [`volume-${volume.body.data.id}`, `bucket-${bucket.body.data.id}`];
    const { types, keys } = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'storage', (log) =>
      [[v, 'storage.VolumeOperationCompleted.v1'], [b, 'storage.BucketOperationCompleted.v1']].every(([s, t]) => (log.types.get(s) ?? []).includes(t)),
    );
    expect(types.get(v)).toEqual(['storage.VolumeRequested.v1', 'storage.VolumeOperationCompleted.v1']);
    expect(types.get(b)).toEqual(['storage.BucketRequested.v1', 'storage.BucketOperationCompleted.v1']);
    expect(keys).toEqual(new Set([v, b]));
  }, 90000);
});
