import { startTestServer, type TestServer } from '../support/test-server';

/** Hostile and malformed input against every declared route: clear 4xx answers, never a 500. */
describe('no 500 from client input (embedded profile)', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer('embedded', { SIMULATOR_LATENCY: 'zero' });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers every route with malformed bodies, ids and queries without a 500 or a stack', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const doc = (await srv.anonymous.get('/v1/openapi.json')).body;
    const bodies: unknown[] = [[], 'x', 42, null, { data: { type: 'wrong', attributes: { name: 1 } } }, { name: 'x'.repeat(10000), tags: { a: { b: 1 } } }, { resourceIds: 'nope', action: [] },
      // Shapes that pass validation on some routes and reach their handlers with unknown references.
      { name: 'n', providerId: 'zzz', region: 'r', instanceType: 't', hostname: 'h', site: 's', plan: 'p', operating_system: 'o', billing: 'hourly', publicKey: 'ssh-ed25519 AAAA' },
      { action: 'stop', resourceType: 'servers', resourceIds: ['a', 'b'] },
      { data: { type: 'actions', attributes: { action: 'stop' } } },
      { name: 'k', locked: true, plan: 'zzz', enabled: false, credentials: { apiKey: 'k' } },
    ];
    const ids = ['x'.repeat(300), '%00', '..', '00000000-0000-0000-0000-000000000000', '"quoted"'];
    const statuses = new Map<number, number>();
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) {
        for (const id of ids) {
          const base = template.replace(/\{[^}]+\}/g, encodeURIComponent(id));
          const hostileQuery = '?page=0&limit=abc&sort=-nope&fields[x]=&status=weird&providerId=' + encodeURIComponent(id);
          const payloads = method === 'get' || method === 'delete' ? [undefined] : bodies;
          // Bad bodies and ids alone (so they reach the handlers), then a hostile query string too.
          for (const [path, body] of [...payloads.map((b) => [base, b] as const), [base + hostileQuery, payloads[0]] as const]) {
            const res = await api.send(method.toUpperCase(), path, body === undefined ? undefined : JSON.stringify(body), body === undefined ? {} : { 'content-type': 'application/json' });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status >= 500) throw new Error(`${method.toUpperCase()} ${path} ${JSON.stringify(body)} → ${res.status} ${res.text.slice(0, 300)}`);
            expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
          }
        }
      }
    }
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    expect(statuses.get(400)).toBeGreaterThan(100);
  }, 240000);
});
