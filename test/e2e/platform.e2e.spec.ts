import { Kafka, logLevel } from 'kafkajs';
import { startTestServer, type TestServer } from '../support/test-server';
import { client } from '../support/http-client';
import { waitForTopic } from '../support/kafka';
import { eventually } from '../support/wait';
import { requireEngine } from '../engines';

describe('server profile: conventions, health, metrics and the Kafka relay on the real API', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer('server', { HTTP_PORT: '0', PUBLIC_URL: 'https://api.example.test/' });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('serves health, a ready check of every engine, and Prometheus metrics', async () => {
    const health = await srv.anonymous.get('/v1/health/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', service: 'cloud-provisioning-api' });
    expect(typeof health.body.uptime).toBe('number');
    const ready = await srv.anonymous.get('/v1/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, checks: { database: 'ok', redis: 'ok', queue: 'ok' } });

    await srv.as(srv.bootstrap.apiKey).get('/v1/api-keys');
    const metrics = await srv.anonymous.get('/v1/health/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toContain('text/plain');
    expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="\/v1\/api-keys",status="200"\} \d+/);
    expect(metrics.text).toContain('http_request_duration_seconds_bucket');
    expect(metrics.text).toContain('eventstore_append_duration_seconds_count');
    expect(metrics.text).toMatch(/subscription_lag_events\{subscription="projection:api_keys:v1"\} \d+/);
    expect(metrics.text).toMatch(/subscription_lag_events\{subscription="relay:kafka"\} \d+/);
    expect(metrics.text).toContain('subscription_lag_milliseconds');
  });

  it('answers the plain-HTTP port with 403 HTTPS_REQUIRED and every response with X-Request-Id', async () => {
    const res = await fetch(`${srv.httpUrl}/v1/api-keys`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { errors: Array<{ code: string }> }).errors[0].code).toBe('HTTPS_REQUIRED');
    const echoed = await srv.anonymous.get('/v1/health/health', { 'X-Request-Id': 'trace-abc-123' });
    expect(echoed.headers['x-request-id']).toBe('trace-abc-123');
    const missing = await srv.anonymous.get('/v1/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const wrongMethod = await srv.as(srv.bootstrap.apiKey).send('PUT', '/v1/api-keys', {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.errors[0].code).toBe('METHOD_NOT_ALLOWED');
  });

  it('publishes the OpenAPI document of the real routes and the reference page', async () => {
    const doc = await srv.anonymous.get('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v1/api-keys', '/v1/api-keys/{id}', '/v1/health/ready', '/v1/admin/projects']));
    expect(doc.body.paths['/v1/api-keys'].post.requestBody).toBeDefined();
    const page = await srv.anonymous.get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html');
  });

  it('describes the real API fully: servers from PUBLIC_URL, declared tags, a license, named resource schemas, every error status', async () => {
    const doc = (await srv.anonymous.get('/v1/openapi.json')).body;
    expect(doc.servers).toEqual([{ url: 'https://api.example.test', description: expect.any(String) }]);
    expect(doc.info.license.name).toEqual(expect.any(String));
    const declared = new Set(doc.tags.map((t: { name: string }) => t.name));
    const schemas = doc.components.schemas;
    for (const name of ['Instance', 'InstanceAttributes', 'ApiKey', 'ApiKeyCreate', 'Job', 'Provider', 'Volume', 'Database', 'ListMeta', 'Errors']) expect(schemas[name]).toBeDefined();
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(ops)) {
        operations += 1;
        for (const t of op.tags) expect(declared.has(t)).toBe(true);
        for (const s of ['400', '403', '431', '500', '503']) expect(op.responses[s]).toBeDefined();
        if (path.includes('{')) expect(op.responses['414']).toBeDefined();
        if (op.requestBody) for (const s of ['413', '415']) expect(op.responses[s]).toBeDefined();
        // every JSON:API resource answered is a named schema, not an inline object
        for (const r of Object.values(op.responses as Record<string, any>)) {
          const data = r.content?.['application/json']?.schema?.properties?.data;
          const item = data?.type === 'array' ? data.items : data;
          if (item && !item.$ref) expect(item.properties?.attributes).toBeUndefined();
        }
      }
    }
    expect(operations).toBeGreaterThan(100);
  });

  it('sends security headers on every answer, a CSP that lets /docs load, and rejects an oversized URL in the JSON:API shape', async () => {
    for (const path of ['/v1/health/health', '/v1/nope', '/v1/openapi.json']) {
      const r = await srv.anonymous.get(path);
      expect(r.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    }
    const docs = await srv.anonymous.get('/docs');
    expect(docs.headers['content-security-policy']).toMatch(/script-src 'self'/);
    const long = await srv.as(srv.bootstrap.apiKey).get(`/v1/instances/${'i'.repeat(5000)}`);
    expect(long.status).toBe(414);
    expect(long.body.errors[0]).toMatchObject({ status: '414', code: 'URI_TOO_LONG' });
    expect(long.text).not.toContain('iiiiiiiiii');
  });

  it('accepts the JSON:API page[size]/page[number] aliases on a real list', async () => {
    const key = srv.as(srv.bootstrap.apiKey);
    await key.post('/v1/api-keys', { name: 'alias-1' });
    const r = await key.get('/v1/api-keys?page[size]=1&page[number]=2');
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ page: 2, limit: 1 });
    expect(r.body.data).toHaveLength(1);
    const bad = await key.get('/v1/api-keys?page[size]=101');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ code: 'INVALID_QUERY', source: { parameter: 'page[size]' } });
  });

  it('relays identity events to cloud.<context>.events.v1 as CloudEvents, without key material', async () => {
    const created = await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'relayed' });
    expect(created.status).toBe(201);
    const key = created.body.data.attributes.key as string;
    const topic = `${srv.env.KAFKA_TOPIC_PREFIX}.identity.events.v1`;
    const kafka = new Kafka({ clientId: 'e2e', brokers: requireEngine('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `e2e-${srv.env.KAFKA_TOPIC_PREFIX}` });
    const seen: Array<{ key: string; value: any }> = [];
    await waitForTopic(kafka, topic);
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push({ key: message.key!.toString(), value: JSON.parse(message.value!.toString()) }) });
      await eventually(async () => seen.some((m) => m.value.subject === `apikey-${created.body.data.id}`), (found) => found, 30000, 100);
    } finally {
      await consumer.disconnect();
    }
    const issued = seen.find((m) => m.value.subject === `apikey-${created.body.data.id}`);
    expect(issued).toBeDefined();
    expect(issued!.key).toBe(`apikey-${created.body.data.id}`);
    expect(issued!.value).toMatchObject({ specversion: '1.0', type: 'identity.ApiKeyIssued.v1', source: `/v1/projects/${srv.bootstrap.projectId}` });
    expect(typeof issued!.value.position).toBe('number');
    const all = JSON.stringify(seen);
    expect(all).not.toContain(key);
    expect(all).not.toContain('keyHash');
  });
});

describe('readiness with a dependency down', () => {
  it('answers 503 with the failing check named when Redis is unreachable', async () => {
    const srv = await startTestServer('server', { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      // The Kafka relay suite stops the shared broker for a while, possibly in a parallel jest worker:
      // wait (bounded) for a reading where only Redis is down.
      const ready = await eventually(() => client(srv.url).get('/v1/health/ready'), (r) => r.body?.checks?.queue === 'ok', 120_000, 500);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ready: false, checks: { database: 'ok', redis: 'down', queue: 'ok' } });
      // Authenticated requests still pass when the rate-limit store is down (DECISIONS §4).
      expect((await srv.as(srv.bootstrap.apiKey).get('/v1/api-keys')).status).toBe(200);
      expect((await srv.anonymous.get('/v1/api-keys')).status).toBe(503);
    } finally {
      await srv.stop();
    }
  }, 180_000);
});
