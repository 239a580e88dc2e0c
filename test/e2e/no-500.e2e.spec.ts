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
        // A stream (text/event-stream) answers a valid request with a body that never ends: events-stream.e2e reads those.
        if ((ops[method] as { responses?: Record<string, { content?: Record<string, unknown> }> }).responses?.['200']?.content?.['text/event-stream']) continue;
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

  it('takes no body, an empty body or {} alike on every POST whose body has no required field (DECISIONS 14)', async () => {
    const doc = (await srv.anonymous.get('/v1/openapi.json')).body;
    const deref = (s: Record<string, any>): Record<string, any> => (s?.$ref ? deref(doc.components.schemas[String(s.$ref).split('/').pop()!]) : s);
    const missing = '00000000-0000-0000-0000-000000000000';
    const checked: string[] = [];
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const op = ops.post;
      if (!op) continue;
      const flat = op.requestBody && deref(op.requestBody.content['application/json'].schema.oneOf[0]);
      // A body some field of which is required (alone, or one of several: `anyOf` of `required`) is not bodiless.
      if (flat && (flat.required?.length || flat.anyOf || flat.minProperties)) continue;
      if (op.requestBody) expect({ template, required: op.requestBody.required }).toEqual({ template, required: false });
      const path = template.replace(/\{[^}]+\}/g, missing);
      const api = srv.as(template.startsWith('/v1/admin/') ? srv.bootstrap.adminKey : srv.bootstrap.apiKey);
      const variants: [string, string | undefined, Record<string, string>][] = [
        ['no body', undefined, {}],
        ['empty body', '', { 'content-type': 'application/json' }],
        ['{}', '{}', { 'content-type': 'application/json' }],
      ];
      const statuses: number[] = [];
      for (const [label, body, headers] of variants) {
        const res = await api.send('POST', path, body, headers);
        const errors: { detail?: string; source?: { pointer?: string } }[] = res.body?.errors ?? [];
        const aboutBody = errors.filter((e) => e.source?.pointer !== undefined || /body/i.test(e.detail ?? ''));
        if (res.status === 415 || (res.status === 400 && aboutBody.length) || res.status >= 500) throw new Error(`POST ${template} with ${label} → ${res.status} ${res.text.slice(0, 300)}`);
        statuses.push(res.status);
      }
      expect({ template, statuses }).toEqual({ template, statuses: statuses.map(() => statuses[0]) });
      checked.push(template);
    }
    expect(checked).toEqual(expect.arrayContaining(['/v1/storage/volumes/{id}/detach', '/v1/jobs/{id}/retry', '/v1/backups/{id}/restore', '/v1/projects/{projectId}/invites/{inviteId}/resend']));
  }, 120000);
});
