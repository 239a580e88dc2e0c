import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import type { TestResponse } from '../support/http-client';
import { openSession, startTestGateway, type TestGateway } from './gateway.support';

/** Ids a client may put in a path: prototype names, traversal, control and odd characters, the longest a path segment takes, and longer. */
const HOSTILE_IDS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', '..%2Fx', '..%2F..%2Fetc%2Fpasswd', '%2E%2E', '%00', '%E2%80%AE', "x'%20OR%201%3D1--", '%7B%22%24ne%22%3A1%7D', 'a'.repeat(100), 'a'.repeat(5000)];

/** Bodies of the wrong JSON type, wrong field types, extra fields, and sizes and depths no form sends. */
const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });
const HOSTILE_BODIES: unknown[] = [
  null,
  [],
  [{}],
  'a string',
  42,
  true,
  {},
  { __proto__: { admin: true } },
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
  { name: { $ne: 1 }, id: ['x'], kind: 7, connectionId: null, baseUrl: 12, secret: {}, limits: 'none', targets: 'simulator', price: 'free' },
  { name: 'x', limits: { rpm: '5', monthlySpendCapUsd: 'NaN' } },
  { name: 'x', limits: { rpm: -1, monthlySpendCapUsd: 1e308 } },
  { name: 'x', limits: { rpm: 1.5 } },
  { id: 'ok-model', connectionId: 'simulator', upstreamModel: 'sim-mini', price: { inputPerMTok: 1e400, outputPerMTok: -0 } },
  { targets: [{ connectionId: '__proto__' }, { connectionId: 'constructor', model: '' }] },
  { targets: Array.from({ length: 1000 }, () => ({ connectionId: 'simulator' })) },
  { name: 'x', extra: 'field', another: { nested: true } },
  { name: 'x'.repeat(100_000) },
  { name: 'a\u0000b', limits: { rpm: 1 } },
  { name: 'line\nbreak\u001b[31m' },
  { name: '\ud800' },
  { id: 'nul\u0000', connectionId: 'simulator', upstreamModel: 'a\u0000', price: { inputPerMTok: 1, outputPerMTok: 1 } },
  { name: 'n', kind: 'openai', baseUrl: 'https://example.com/v1', secret: 's\u0000' },
  { targets: [{ connectionId: 'simulator', model: 'm\u0000' }] },
  { '\u0000': 1 },
  { name: 'n', kind: 'openai', baseUrl: 'javascript:alert(1)', secret: 's' },
  { name: 'n', kind: 'openai', baseUrl: 'http://[::1', secret: 's' },
  deep(2000),
];

/** A raw body that is not JSON, or says it is something else. */
const RAW: { body: string; contentType: string }[] = [
  { body: '{"name":', contentType: 'application/json' },
  { body: '{"name": "x"}garbage', contentType: 'application/json' },
  { body: '\u0000\u0001\u0002', contentType: 'application/json' },
  { body: 'name=x', contentType: 'application/x-www-form-urlencoded' },
  { body: '<xml/>', contentType: 'text/xml' },
  { body: '{"name":"x"}', contentType: 'application/json; charset=utf-16' },
];

const QUERIES = ['?keyId=%00', '?model=a%00b', '?kind=%ED%A0%80', '?limit=abc', '?limit=-1', '?limit=1e9', '?page=__proto__', '?sort=__proto__', '?sort=-constructor', '?keyId=a&keyId=b', '?model[$ne]=x', '?from=2026-13-45', '?to=' + 'x'.repeat(5000), '?kind=__proto__', '?status[]=verified', '?%00=1'];

/**
 * Hostile input on the gateway's management routes (/api/*): whatever the id, body or query, the
 * answer is a 4xx in the uniform error envelope, never a 500 and never a stack trace.
 */
describe.each<Profile>(['embedded', 'server'])('gateway management routes under hostile input (%s profile)', (profile) => {
  let srv: TestServer;
  let gw: TestGateway;
  let cookie: string;
  let key: string;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    gw = await startTestGateway(srv);
    cookie = await openSession(gw, srv.bootstrap.apiKey);
    key = (await gw.http({ cookie }).post('/api/keys', { name: 'hostile' })).body.data.attributes.key;
  }, 180000);
  afterAll(async () => {
    await gw?.close();
    await srv?.stop();
  });

  /** Every failure is the OpenAI envelope, 4xx, without a trace of the server's code. */
  const expectClean = (what: string, res: TestResponse) => {
    const problem = res.status >= 500 || res.status < 200 ? `status ${res.status}` : /\bat .+\.(ts|js):\d+|node_modules|Error: |TypeError|SyntaxError/.test(res.text) ? 'a stack trace or error class' : null;
    if (problem) throw new Error(`${what}: ${problem}: ${res.text.slice(0, 500)}`);
    const envelope = res.body && typeof res.body === 'object' && Object.keys(res.body).join() === 'error' && Object.keys(res.body.error).sort().join() === 'code,message,param,type' && typeof res.body.error.message === 'string' && typeof res.body.error.type === 'string';
    if (res.status >= 400 && !envelope) throw new Error(`${what}: ${res.status} not in the uniform envelope: ${res.text.slice(0, 300)}`);
  };

  const byKey = () => gw.http({ Authorization: `Bearer ${key}` });
  const bySession = () => gw.http({ cookie });
  const ROUTES: { method: string; path: (id: string) => string; as: () => ReturnType<TestGateway['http']> }[] = [
    { method: 'PATCH', path: (id) => `/api/keys/${id}`, as: bySession },
    { method: 'DELETE', path: (id) => `/api/keys/${id}`, as: bySession },
    { method: 'GET', path: (id) => `/api/providers/${id}`, as: byKey },
    { method: 'POST', path: (id) => `/api/providers/${id}/verify`, as: byKey },
    { method: 'DELETE', path: (id) => `/api/providers/${id}`, as: byKey },
    { method: 'GET', path: (id) => `/api/models/${id}`, as: byKey },
    { method: 'GET', path: (id) => `/api/models/${id}`, as: () => gw.http() },
    { method: 'PATCH', path: (id) => `/api/models/${id}`, as: byKey },
    { method: 'DELETE', path: (id) => `/api/models/${id}`, as: byKey },
    { method: 'GET', path: (id) => `/api/models/${id}/waterfall`, as: byKey },
    { method: 'PUT', path: (id) => `/api/models/${id}/waterfall`, as: byKey },
    { method: 'GET', path: (id) => `/v1/models/${id}`, as: byKey },
  ];
  const BODY_ROUTES: { method: string; path: string; as: () => ReturnType<TestGateway['http']> }[] = [
    { method: 'POST', path: '/api/session', as: () => gw.http({ 'X-Service-API-Key': srv.bootstrap.apiKey }) },
    { method: 'POST', path: '/api/keys', as: bySession },
    { method: 'POST', path: '/api/providers', as: byKey },
    { method: 'POST', path: '/api/models', as: byKey },
    { method: 'PATCH', path: '/api/models/constructor', as: byKey },
    { method: 'PUT', path: '/api/models/sim-mini/waterfall', as: byKey },
  ];

  it('answers hostile ids in every management route with a 4xx envelope', async () => {
    // A model and a waterfall named like the prototype's own properties exist, so those ids also reach the stores' writes.
    expect((await byKey().post('/api/models', { id: 'constructor', connectionId: 'simulator', upstreamModel: 'sim-mini', price: { inputPerMTok: 1, outputPerMTok: 1 } })).status).toBe(201);
    // The prototype-named model works like any other (the loop below deletes it).
    expect((await byKey().get('/api/models/constructor')).body.data.id).toBe('constructor');
    for (const route of ROUTES)
      for (const id of HOSTILE_IDS) {
        const res = await route.as().send(route.method, route.path(id), route.method === 'GET' || route.method === 'DELETE' ? undefined : { limits: { rpm: 1 }, targets: [{ connectionId: 'simulator' }] });
        expectClean(`${route.method} ${route.path(id).slice(0, 80)}`, res);
      }
    // A model name the store cannot hold, on the inference routes too.
    for (const path of ['/v1/chat/completions', '/v1/responses']) expectClean(`POST ${path} NUL model`, await byKey().post(path, { model: 'sim\u0000', messages: [{ role: 'user', content: 'x' }], input: 'x' }));
    expect((await byKey().get('/api/models/__proto__')).status).toBe(404);
    // A session-only route called with an organization key: 403, whatever the id.
    expect((await byKey().send('PATCH', '/api/keys/__proto__', {})).status).toBe(403);
    expect((await bySession().send('PATCH', '/api/keys/__proto__', { limits: { rpm: 1 } })).status).toBe(404);
    expect((await bySession().delete('/api/keys/constructor')).status).toBe(404);
  });

  it('answers bodies of the wrong type, with wrong field types or extra fields, and raw non-JSON with a 4xx envelope', async () => {
    for (const route of BODY_ROUTES) {
      for (const body of HOSTILE_BODIES) {
        const res = await route.as().send(route.method, route.path, body === null ? 'null' : body);
        const what = `${route.method} ${route.path} ${JSON.stringify(body)?.slice(0, 60)}`;
        expectClean(what, res);
        // The session exchange reads no body (its credential is a header), and a key's fields all have defaults: anything else refuses each of these bodies.
        const valid = route.path === '/api/session' || (route.path === '/api/keys' && JSON.stringify(body) === '{}');
        if (!valid && res.status < 400) throw new Error(`${what}: accepted with ${res.status}`);
      }
      for (const raw of RAW) expectClean(`${route.method} ${route.path} raw ${raw.contentType}`, await route.as().send(route.method, route.path, raw.body, { 'content-type': raw.contentType }));
    }
    // Extra fields are refused by name, not dropped silently.
    const extra = await bySession().post('/api/keys', { name: 'x', admin: true });
    expect([extra.status, extra.body.error.type]).toEqual([400, 'invalid_request_error']);
    expect(extra.body.error.message).toContain('admin');
    // Nothing above polluted the prototype of the process's objects.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('answers hostile queries on the lists with a 4xx envelope or the list', async () => {
    for (const path of ['/api/keys', '/api/usage', '/api/spend', '/api/providers', '/api/models'])
      for (const q of QUERIES) expectClean(`GET ${path}${q.slice(0, 60)}`, await (path === '/api/keys' ? bySession() : byKey()).get(`${path}${q}`));
  });

  it('answers hostile credentials with the uniform 401', async () => {
    const hostile = ['Bearer __proto__', 'Bearer gwk_' + 'g'.repeat(40), 'Bearer gwk_' + 'a'.repeat(4000), 'Basic Z3drXzE=', 'Bearer', 'Bearer  ', `Bearer ${key}x`, `Bearer ${key.toUpperCase()}`, `Bearer ${key.slice(0, -1)}`];
    for (const authorization of hostile) {
      const res = await gw.http({ authorization }).get('/api/usage');
      expectClean(`auth ${authorization.slice(0, 30)}`, res);
      expect(res.status).toBe(401);
    }
    for (const c of ['gw_session=__proto__', 'gw_session=a.b.c', 'gw_session=' + 'x'.repeat(8000), 'gw_session=e30.AAAA', 'gw_session=%ZZ']) expectClean(`cookie ${c.slice(0, 30)}`, await gw.http({ cookie: c }).post('/api/keys', { name: 'x' }));
  });
});
