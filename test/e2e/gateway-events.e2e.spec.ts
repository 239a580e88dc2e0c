import { createServer, type Server } from 'node:http';
import { requireEngine } from '../engines';
import { readTopicUntil, type TopicLog } from '../support/kafka';
import { startTestServer, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { openSession, startTestGateway, type TestGateway } from './gateway.support';

const UP_SECRET = 'sk-upstream-events-secret-9876543210';
/** What the analysts are promised (DECISIONS 19, 20): each kind of gateway event on its context's topic and in the history. */
const PROMISED = ['gateway.KeyMinted.v1', 'gateway.KeyLimitsChanged.v1', 'gateway.UsageRecorded.v1', 'gateway.ConnectionAdded.v1', 'gateway.ConnectionVerified.v1', 'gateway.KeyRevoked.v1'];

/** An OpenAI-compatible upstream that answers `GET /v1/models` to its own secret only (what verify calls). */
async function modelsPeer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const ok = req.url === '/v1/models' && req.headers.authorization === `Bearer ${UP_SECRET}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { object: 'list', data: [{ id: 'peer-model', object: 'model', created: 1, owned_by: 'peer' }] } : { error: { message: 'no', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  return { server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/v1` };
}

/**
 * Gateway events are events like every other context's (DECISIONS 19, 20): keys minted and revoked,
 * limits changed, usage recorded and connections verified reach `<prefix>.gateway.events.v1` on the
 * real Kafka and the project's `GET /v1/events`, and no secret (the gwk_ key, its hash, the upstream's
 * secret, the session, the cloud credential) is in any message, event or answer.
 */
describe('gateway events reach cloud.gateway.events.v1 and the event history (server profile)', () => {
  let srv: TestServer;
  let gw: TestGateway;
  let peer: { server: Server; url: string };

  beforeAll(async () => {
    peer = await modelsPeer();
    srv = await startTestServer('server', { SIMULATOR_LATENCY: 'zero' });
    gw = await startTestGateway(srv, { upstreamTimeoutMs: 5000 });
  }, 180000);
  afterAll(async () => {
    await gw?.close();
    await srv?.stop();
    await new Promise((r) => peer?.server.close(r));
  });

  it('publishes keys, limits, usage and connections on the gateway topic and in /v1/events, with no secret anywhere', async () => {
    const live = await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'live owner', role: 'owner', mode: 'live' });
    expect(live.status).toBe(201);
    const cloudKey: string = live.body.data.attributes.key;
    const cookie = await openSession(gw, cloudKey);
    const session = gw.http({ cookie });

    const minted = await session.post('/api/keys', { name: 'events', limits: { rpm: 100, monthlySpendCapUsd: 5 } });
    expect(minted.status).toBe(201);
    const { id: keyId, attributes: { key } } = minted.body.data as { id: string; attributes: { key: string } };
    expect((await session.patch(`/api/keys/${keyId}`, { limits: { rpm: 50 } })).status).toBe(200);
    const byKey = gw.http({ Authorization: `Bearer ${key}` });
    const chat = await byKey.post('/v1/chat/completions', { model: 'sim-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 3 });
    expect(chat.status).toBe(200);
    const requestId = String(chat.headers['x-request-id']);
    const conn = await byKey.post('/api/providers', { name: 'peer', kind: 'openai', baseUrl: peer.url, secret: UP_SECRET });
    expect(conn.status).toBe(201);
    const verified = await byKey.post(`/api/providers/${conn.body.data.id}/verify`, {});
    expect(verified.body.data.attributes).toMatchObject({ status: 'verified', models: 1 });
    expect((await session.delete(`/api/keys/${keyId}`)).status).toBe(204);

    const secrets = [key, UP_SECRET, cookie.split('=')[1], cloudKey];
    const keyStream = `gwkey-${keyId}`;
    const connStream = `gwconn-${conn.body.data.id}`;
    const usageStream = `gwusage-${requestId}:1`;
    const expected: Record<string, string[]> = {
      [keyStream]: ['gateway.KeyMinted.v1', 'gateway.KeyLimitsChanged.v1', 'gateway.KeyRevoked.v1'],
      [connStream]: ['gateway.ConnectionAdded.v1', 'gateway.ConnectionVerified.v1'],
      [usageStream]: ['gateway.UsageRecorded.v1'],
    };
    const carried = (types: Map<string, string[]>) => Object.entries(expected).every(([s, t]) => t.every((x) => (types.get(s) ?? []).includes(x)));

    // The topic: each stream's events, in order, keyed by the stream; gateway streams only; no secret in any message.
    const topic: TopicLog = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'gateway', (log) => carried(log.types), 60000);
    for (const [stream, types] of Object.entries(expected)) expect(topic.types.get(stream)).toEqual(types);
    expect([...topic.types.keys()].every((s) => /^gw(key|conn|usage|budget)-/.test(s))).toBe(true);
    expect([...topic.keys]).toEqual(expect.arrayContaining(Object.keys(expected)));
    const messages = topic.values.join('\n');
    for (const s of secrets) expect(messages).not.toContain(s);
    expect(messages).not.toMatch(/keyHash/i);
    const usage = topic.values.map((v) => JSON.parse(v)).find((ce) => ce.subject === usageStream);
    expect(usage).toMatchObject({ source: `/v1/projects/${srv.bootstrap.projectId}`, livemode: true, data: { keyId, model: 'sim-mini', outcome: 'completed' } });

    // The analysts' history: the live credential sees the same events under `type=gateway`, secrets stripped.
    const history = srv.as(cloudKey);
    const listed = await eventually(
      () => history.get('/v1/events?type=gateway&limit=100'),
      (r) => r.status === 200 && carried(new Map(Object.keys(expected).map((s) => [s, r.body.data.filter((e: { attributes: { subject: string } }) => e.attributes.subject === s).map((e: { attributes: { eventType: string } }) => e.attributes.eventType)]))),
      60000,
    );
    const seen = new Set(listed.body.data.map((e: { attributes: { eventType: string } }) => e.attributes.eventType));
    expect(PROMISED.every((t) => seen.has(t))).toBe(true);
    const body = JSON.stringify(listed.body);
    for (const s of secrets) expect(body).not.toContain(s);
    expect(body).not.toMatch(/keyHash/i);
    // Nor in the server's log lines.
    for (const s of secrets.slice(0, 2)) expect(srv.logs()).not.toContain(s);
  }, 180000);
});
