/**
 * Every answer is described by its OpenAPI document (issue 21 §5): each 2xx JSON body of a walk over
 * the API is validated against its operation's response schema, whose objects are closed
 * (`additionalProperties: false`), so a response carrying a field the document does not describe, or
 * a field of another type, fails here. The walk creates the hand-written resources (instances,
 * servers, tickets, invoices, members and an invitation), then GETs every list route without path
 * parameters and, for each list's first item, its single-resource route and sub-collections.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startTestServer, type TestServer } from '../support/test-server';
import type { TestResponse } from '../support/http-client';
import { ed25519Key } from '../support/ssh-keys';

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>; components: unknown };

/** The operation's route template matching a concrete path (`/v1/instances/{id}` for `/v1/instances/abc`). */
function templateOf(doc: Doc, path: string): string | undefined {
  const bare = path.split('?')[0];
  const segments = bare.split('/');
  const candidates = Object.keys(doc.paths).filter((t) => {
    const ts = t.split('/');
    return ts.length === segments.length && ts.every((s, i) => s.startsWith('{') || s === segments[i]);
  });
  // The most literal template wins (`/v1/instances/all` over `/v1/instances/{id}`).
  return candidates.sort((a, b) => b.split('{').length - a.split('{').length).pop();
}

describe('responses conform to the OpenAPI document (embedded profile)', () => {
  let srv: TestServer;
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const seen: { method: string; path: string; status: number }[] = [];
  const failures: string[] = [];

  const check = (method: string, path: string, res: TestResponse): TestResponse => {
    const template = templateOf(doc, path);
    if (res.status < 200 || res.status >= 300 || !template || typeof res.body !== 'object' || res.body === null) return res;
    const content = doc.paths[template][method.toLowerCase()]?.responses?.[String(res.status)]?.content;
    const schema = content?.['application/vnd.api+json']?.schema ?? content?.['application/json']?.schema;
    if (!schema) {
      failures.push(`${method} ${template} ${res.status}: no JSON schema in the document for this status`);
      return res;
    }
    const validate = ajv.compile({ ...(schema as object), components: doc.components });
    seen.push({ method, path, status: res.status });
    if (!validate(res.body)) failures.push(`${method} ${template} ${res.status}: ${ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' })}`);
    return res;
  };
  type Api = { get: (p: string) => Promise<TestResponse>; post: (p: string, b?: unknown) => Promise<TestResponse> };
  let api: Api;
  let admin: Api;
  const checked = (raw: ReturnType<TestServer['as']>): Api => ({
    get: async (p) => check('GET', p, await raw.get(p)),
    post: async (p, b) => check('POST', p, await raw.post(p, b)),
  });

  /** GETs every list route of `lists` and, for each list's first item, its single-resource routes one level down. */
  async function walk(client: Api, lists: string[]) {
    for (const list of lists) {
      const res = await client.get(list);
      const id = (Array.isArray(res.body?.data) ? (res.body.data as { id?: string }[]) : [])[0]?.id;
      if (!id) continue;
      for (const [t, ops] of Object.entries(doc.paths)) {
        if (!ops.get || !t.startsWith(`${list}/{`) || t.slice(list.length + 1).split('/').filter((s) => s.startsWith('{')).length !== 1) continue;
        await client.get(t.replace(/\{[^}]+\}/, encodeURIComponent(id)));
      }
    }
  }

  beforeAll(async () => {
    srv = await startTestServer('embedded');
    doc = (await srv.anonymous.get('/v1/openapi.json')).body;
    // The document's own `$ref`s point into `#/components`: compile each response schema beside them.
    api = checked(srv.as(srv.bootstrap.apiKey));
    admin = checked(srv.as(srv.bootstrap.adminKey));
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers of creates, lists, gets and sub-collections carry only what their schemas describe', async () => {
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-conformance' });
    expect(provider.status).toBe(201);
    const providerId = provider.body.data.id as string;
    const creates: [string, unknown][] = [
      ['/v1/instances', { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'web-1', providerId }],
      ['/v1/servers', { name: 'db-1', hostname: 'db-1', site: 'us-east-1', plan: 'pc-t3-medium', operating_system: 'debian_12', billing: 'hourly', role: 'VirtualMachine', provider: providerId }],
      ['/v1/support', { subject: 'Volume stuck', message: 'vol-1 is attaching' }],
      ['/v1/invoices', { currency: 'USD', amountCents: 1000, dueDate: '2030-01-31', lineItems: [{ description: 'Compute', quantity: 2, unitPriceCents: 500 }] }],
      ['/v1/api-keys', { name: 'ci', role: 'viewer' }],
      ['/v1/iam/members', { email: 'dev@example.com', role: 'developer' }],
      [`/v1/projects/${srv.bootstrap.projectId}/invites`, { email: 'new@example.com' }],
      ['/v1/storage/volumes', { name: 'data', sizeGb: 50, region: 'us-east-1', providerId }],
      ['/v1/billing/wallets/USD/credit', { amountCents: 2500 }],
      [`/v1/ssh-keys?providerId=${providerId}`, { name: 'laptop', publicKey: ed25519Key() }],
      ['/v1/cost-estimates', { items: [{ resourceType: 'volume', attributes: { name: 'data', sizeGb: 50, region: 'us-east-1', providerId } }, { resourceType: 'instance', attributes: { region: 'us-east-1', instanceType: 'pc-t3-medium', name: 'web-1', providerId }, quantity: 2 }] }],
    ];
    for (const [path, body] of creates) {
      const res = await api.post(path, body);
      expect([path, res.status < 300]).toEqual([path, true]);
    }
    const lists = (admin: boolean) =>
      Object.entries(doc.paths)
        .filter(([t, ops]) => ops.get && !t.includes('{') && t.startsWith('/v1/') && !/openapi|health/.test(t) && t.startsWith('/v1/admin') === admin)
        // Streams (text/event-stream, WebSocket upgrades) never end: their own suites read them (events-stream.e2e).
        .filter(([, ops]) => !!ops.get?.responses?.['200']?.content?.['application/json'])
        .map(([t]) => t);
    expect(lists(false).length).toBeGreaterThan(40);
    await walk(api, lists(false));
    await walk(admin, lists(true));
    await api.get(`/v1/projects/${srv.bootstrap.projectId}/invites`);
    // The walk reached the hand-written resources and their lists (it cannot pass by seeing nothing).
    const reached = new Set(seen.map((s) => `${s.method} ${templateOf(doc, s.path)}`));
    for (const op of ['GET /v1/instances/{id}', 'GET /v1/servers/{id}', 'GET /v1/support/{id}', 'GET /v1/invoices/{id}', 'GET /v1/instances', 'GET /v1/support', 'GET /v1/invoices', 'GET /v1/servers', 'GET /v1/iam/members', 'GET /v1/iam/members/{id}', 'POST /v1/iam/members', 'POST /v1/projects/{projectId}/invites', 'GET /v1/projects/{projectId}/invites', 'POST /v1/instances', 'POST /v1/servers', 'POST /v1/invoices', 'POST /v1/support', 'POST /v1/cost-estimates', 'GET /v1/admin/customers', 'GET /v1/admin/projects']) {
      expect([op, reached.has(op)]).toEqual([op, true]);
    }
    expect(seen.length).toBeGreaterThan(80);
    expect(failures).toEqual([]);
  });
});

