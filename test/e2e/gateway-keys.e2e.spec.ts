import { ManualClock } from '../../libs/runtime/src/clock';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { openSession, startTestGateway, type TestGateway } from './gateway.support';

const UNIFORM_401 = { error: { message: expect.any(String), type: 'authentication_error', code: 'invalid_key', param: null } };

describe.each<Profile>(['embedded', 'server'])('gateway keys and sessions (%s profile)', (profile) => {
  let srv: TestServer;
  let gw: TestGateway;
  let cookie: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    srv = await startTestServer(profile, {}, { clock });
    gw = await startTestGateway(srv);
    cookie = await openSession(gw, srv.bootstrap.apiKey);
  }, 180000);
  afterAll(async () => {
    await gw?.close();
    await srv?.stop();
  });

  const mint = async (body: unknown = { name: 'ci' }) => {
    const res = await gw.http({ cookie }).post('/api/keys', body);
    expect(res.status).toBe(201);
    return res.body.data as { id: string; attributes: { key: string; prefix: string; mode: string; limits: unknown } };
  };

  it('exchanges an owner credential for a HttpOnly, Secure, SameSite=Strict session cookie; a developer key or none gets no session', async () => {
    const res = await gw.http({ 'X-Service-API-Key': srv.bootstrap.apiKey }).post('/api/session', {});
    expect(res.status).toBe(201);
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(/^gw_session=[^;]+;/);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('Secure');
    expect(set).toContain('SameSite=Strict');
    expect((await gw.http({ Authorization: `Bearer ${srv.bootstrap.apiKey}` }).post('/api/session', {})).status).toBe(201);
    const dev = await srv.as(srv.bootstrap.apiKey).post('/v1/api-keys', { name: 'dev', role: 'developer' });
    const devSession = await gw.http({ 'X-Service-API-Key': dev.body.data.attributes.key }).post('/api/session', {});
    expect(devSession.status).toBe(403);
    expect(devSession.body.error.type).toBe('permission_error');
    const none = await gw.http().post('/api/session', {});
    expect(none.status).toBe(401);
    expect(none.body).toEqual(UNIFORM_401);
    const forged = await gw.http({ cookie: `${cookie.slice(0, -4)}AAAA` }).post('/api/keys', {});
    expect(forged.status).toBe(401);
  });

  it('mints gwk_ + 40 lowercase hex shown once, lists it without the secret (list envelope), in the test mode of the svc_test_ session', async () => {
    const key = await mint({ name: 'ci', limits: { rpm: 30, monthlySpendCapUsd: 2.5 } });
    expect(key.attributes.key).toMatch(/^gwk_[0-9a-f]{40}$/);
    expect(key.attributes).toMatchObject({ prefix: key.attributes.key.slice(0, 12), mode: 'test', limits: { rpm: 30, monthlySpendCapUsd: 2.5 } });
    const list = await gw.http({ Authorization: `Bearer ${key.attributes.key}` }).get('/api/keys?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ page: 1, limit: 100, total: expect.any(Number) });
    expect(list.body.links.first).toContain('page=1');
    const row = list.body.data.find((d: { id: string }) => d.id === key.id);
    expect(row.attributes).toMatchObject({ name: 'ci', prefix: key.attributes.prefix, revoked: false });
    expect(JSON.stringify(list.body)).not.toContain(key.attributes.key);
    // The secret is in no event of the log, nor in the server's log lines.
    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100_000 });
    expect(events.some((e) => e.type === 'gateway.KeyMinted.v1')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(key.attributes.key);
    expect(srv.logs()).not.toContain(key.attributes.key);
  });

  it('session-only routes answer 403 to an organization key; limits change only with the session', async () => {
    const key = await mint();
    const asKey = gw.http({ Authorization: `Bearer ${key.attributes.key}` });
    const denied = await asKey.post('/api/keys', { name: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.type).toBe('permission_error');
    expect((await asKey.delete(`/api/keys/${key.id}`)).status).toBe(403);
    expect((await asKey.patch(`/api/keys/${key.id}`, { limits: { rpm: 1 } })).status).toBe(403);
    const changed = await gw.http({ cookie }).patch(`/api/keys/${key.id}`, { limits: { rpm: 7 } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.attributes.limits).toEqual({ rpm: 7, monthlySpendCapUsd: null });
    expect((await gw.http({ cookie }).patch(`/api/keys/${key.id}`, { limits: { rpm: 0 } })).status).toBe(400);
    expect((await gw.http({ cookie }).post('/api/keys', { name: 'x', secret: 1 })).status).toBe(400);
  });

  it('answers the uniform 401 for a missing, malformed, unknown and revoked key, and never takes a key from a cookie or the query string', async () => {
    const key = await mint();
    const ok = await gw.http({ Authorization: `Bearer ${key.attributes.key}` }).get('/v1/models');
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
    const cases: Record<string, string>[] = [{}, { Authorization: 'Bearer gwk_nothex' }, { Authorization: `Bearer gwk_${'0'.repeat(40)}` }, { cookie: `gw_key=${key.attributes.key}` }];
    for (const headers of cases) {
      const res = await gw.http(headers).get('/v1/models');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNIFORM_401);
    }
    expect((await gw.http().get(`/v1/models?api_key=${key.attributes.key}`)).status).toBe(401);
    const messages = await gw.http().post('/v1/messages', { model: 'sim-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(messages.status).toBe(401);
    expect(messages.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.any(String) } });
    expect((await gw.http({ cookie }).delete(`/api/keys/${key.id}`)).status).toBe(204);
    const revoked = await gw.http({ Authorization: `Bearer ${key.attributes.key}` }).get('/v1/models');
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual(UNIFORM_401);
    expect((await gw.http({ cookie }).delete(`/api/keys/${key.id}`)).status).toBe(404);
  });

  it('answers the uniform 401 for an expired key, on every route, from its expiry on', async () => {
    const expiresAt = new Date(clock.now() + 3_600_000).toISOString();
    const key = await mint({ name: 'short-lived', expiresAt });
    expect(key.attributes).toMatchObject({ expiresAt });
    const auth = { Authorization: `Bearer ${key.attributes.key}` };
    expect((await gw.http(auth).get('/v1/models')).status).toBe(200);
    expect((await gw.http({ cookie }).post('/api/keys', { expiresAt: new Date(clock.now() - 1000).toISOString() })).status).toBe(400);
    expect((await gw.http({ cookie }).post('/api/keys', { expiresAt: 'tomorrow' })).status).toBe(400);
    clock.advance(3_600_000);
    for (const res of [await gw.http(auth).get('/v1/models'), await gw.http(auth).get('/api/usage'), await gw.http(auth).post('/v1/chat/completions', { model: 'sim-mini', messages: [{ role: 'user', content: 'x' }] })]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNIFORM_401);
    }
    const messages = await gw.http({ 'x-api-key': key.attributes.key, 'anthropic-version': '2023-06-01' }).post('/v1/messages', { model: 'sim-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect([messages.status, messages.body.error.type]).toEqual([401, 'authentication_error']);
  });

  it("keeps organizations apart: another project's session neither lists nor revokes these keys", async () => {
    const key = await mint();
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'tenant two' });
    const otherCookie = await openSession(gw, project.body.included[0].attributes.key);
    const list = await gw.http({ cookie: otherCookie }).get('/api/keys');
    expect(list.body.data.map((d: { id: string }) => d.id)).not.toContain(key.id);
    expect((await gw.http({ cookie: otherCookie }).delete(`/api/keys/${key.id}`)).status).toBe(404);
  });

  it('revokes a session: DELETE /api/session answers 204 and clears the cookie; the cookie is refused from then on, by every gateway process', async () => {
    const own = await openSession(gw, srv.bootstrap.apiKey);
    const key = await mint();
    expect((await gw.http({ Authorization: `Bearer ${key.attributes.key}` }).delete('/api/session')).status).toBe(403);
    const other = await startTestGateway(srv);
    try {
      expect((await other.http({ cookie: own }).get('/api/keys')).status).toBe(200);
      const out = await gw.http({ cookie: own }).delete('/api/session');
      expect(out.status).toBe(204);
      expect(String(out.headers['set-cookie'])).toMatch(/^gw_session=; Path=\/api; Max-Age=0; HttpOnly; Secure; SameSite=Strict/);
      for (const g of [gw, other]) {
        const refused = await g.http({ cookie: own }).post('/api/keys', { name: 'after logout' });
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual(UNIFORM_401);
      }
      // Other sessions of the same credential stay open.
      expect((await gw.http({ cookie }).get('/api/keys')).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
