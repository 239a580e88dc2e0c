/**
 * What a client meets before and around its calls (issue 16 §3 and Fastify's own 414/431):
 * security headers, the /docs CSP against the page's own sources, JSON:API pagination aliases,
 * the OpenAPI document's servers/tags/license/named schemas/error statuses, and no deprecation
 * warning at start.
 */
import { dirname } from 'node:path';
import { connect } from 'node:tls';
import { call, owner, startApp } from './fixtures';
import type { HttpApp } from '../src';
import { buildOpenApiDocument, collectionSchema, errorStatuses, RegisteredRoute, resourceSchema, routeRegistry, schemaNameOf } from '../src';
import { z } from 'zod';
import { loadConfig } from '../../config/src/config';

/** Warning codes emitted (Fastify's go through process.emitWarning(message, name, code)). */
const warnings: string[] = [];
let http: HttpApp;
let url: string;
let httpUrl: string | undefined;

beforeAll(async () => {
  jest.spyOn(process, 'emitWarning').mockImplementation(((_m: unknown, _n?: unknown, code?: unknown) => void warnings.push(String(code))) as typeof process.emitWarning);
  ({ http, url, httpUrl } = await startApp({ httpPort: 0 }));
});
afterAll(async () => {
  jest.restoreAllMocks();
  await http?.close();
});

/** A raw request over TLS (what `call` cannot send: 20 KiB of headers). */
function rawTls(head: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false }, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

const expectSecurityHeaders = (h: Record<string, string | string[] | undefined>) => {
  expect(h['strict-transport-security']).toMatch(/max-age=\d{7,}/);
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['content-security-policy']).toEqual(expect.any(String));
};

describe("Fastify's own 414 and 431, in the JSON:API shape without echo", () => {
  it('414 URI_TOO_LONG for a 5,000-character path segment', async () => {
    const long = 'x'.repeat(5000);
    const r = await call(`${url}/v1/widgets/${long}`, { headers: { ...owner, 'X-Request-Id': 'long-1' } });
    expect(r.status).toBe(414);
    expect(r.json).toEqual({ errors: [{ status: '414', code: 'URI_TOO_LONG', detail: expect.any(String) }] });
    expect(r.text).not.toContain('xxxxxxxxxx');
    expect(r.headers['x-request-id']).toBe('long-1');
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expectSecurityHeaders(r.headers);
    const ja = await call(`${url}/v1/widgets/${long}`, { headers: { ...owner, Accept: 'application/vnd.api+json' } });
    expect(ja.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
  });

  it('400 BAD_REQUEST for a malformed URL, without echoing it', async () => {
    const r = await call(`${url}/v1/widgets/%zzsecret-path`, { headers: owner });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual([{ status: '400', code: 'BAD_REQUEST', detail: expect.any(String) }]);
    expect(r.text).not.toContain('secret-path');
  });

  it('431 HEADERS_TOO_LARGE for 20 KiB of headers', async () => {
    const text = await rawTls(`GET /v1/widgets HTTP/1.1\r\nHost: x\r\nX-Service-API-Key: svc_test_owner\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`);
    const r = parseRaw(text);
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body)).toEqual({ errors: [{ status: '431', code: 'HEADERS_TOO_LARGE', detail: expect.any(String) }] });
    expect(text).not.toContain('hhhhhhhhhh');
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    expectSecurityHeaders(r.headers);
  });

  it('400 BAD_REQUEST (JSON:API) for a request that is not HTTP', async () => {
    const r = parseRaw(await rawTls('NOT HTTP AT ALL\r\n\r\n'));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST' });
  });
});

describe('security headers', () => {
  it.each([
    ['a 200', '/v1/widgets', owner, 200],
    ['a 401', '/v1/widgets', {}, 401],
    ['a 404', '/v1/nothing-here', owner, 404],
    ['a 500', '/v1/boom', {}, 500],
    ['the document', '/v1/openapi.json', {}, 200],
  ])('are on %s, with a CSP that loads nothing', async (_what, path, headers, status) => {
    const r = await call(`${url}${path}`, { headers });
    expect(r.status).toBe(status);
    expectSecurityHeaders(r.headers);
    expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('are on the plain-HTTP 403', async () => {
    const r = await call(`${httpUrl}/v1/widgets`);
    expect(r.status).toBe(403);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('let /docs load: every script and style of the page is allowed by its CSP, and each answers 200', async () => {
    const page = await call(`${url}/docs`);
    expect(page.status).toBe(200);
    expectSecurityHeaders(page.headers);
    const csp = Object.fromEntries(
      String(page.headers['content-security-policy']).split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]),
    ) as Record<string, string[]>;
    const allows = (directive: string, source: string) => {
      const list = csp[directive] ?? csp['default-src'] ?? [];
      if (source === 'inline') return list.includes("'unsafe-inline'");
      return source.startsWith('/') && !source.startsWith('//') ? list.includes("'self'") : list.some((s) => source.startsWith(s));
    };
    const scripts = [...page.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    const styles = [...page.text.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    const images = [...page.text.matchAll(/<link[^>]*rel="icon"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    expect(styles.length).toBeGreaterThanOrEqual(1);
    // Every script is a file of this origin (no inline script, which the CSP would block), and the CSP allows it.
    for (const [, attrs, inline] of scripts) {
      const src = /src="([^"]+)"/.exec(attrs)?.[1];
      expect([src, inline.trim()]).toEqual([expect.stringMatching(/^\/(?!\/)/), '']);
      expect(allows('script-src', src!)).toBe(true);
    }
    expect(allows('script-src', 'inline')).toBe(false);
    expect(page.text).not.toMatch(/<style|\son[a-z]+=/i);
    for (const href of styles) expect(allows('style-src', href)).toBe(true);
    for (const href of images) expect(allows('img-src', href)).toBe(true);
    // swagger-ui sets inline styles and data: images, and fetches the document from this origin
    expect(allows('style-src', 'inline')).toBe(true);
    expect(csp['img-src']).toContain('data:');
    expect(allows('connect-src', '/v1/openapi.json')).toBe(true);
    for (const src of [...scripts.map(([, a]) => /src="([^"]+)"/.exec(a)![1]), ...styles, ...images]) {
      const asset = await call(`${url}${src}`);
      expect(asset.status).toBe(200);
      expect(asset.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
    }
    const init = await call(`${url}/docs/init.js`);
    expect(init.text).not.toMatch(/https?:\/\//);
    expect(init.text).toContain('validatorUrl: null'); // no badge fetched from validator.swagger.io
  });
});

describe('JSON:API pagination aliases', () => {
  const get = (qs: string) => call(`${url}/v1/widgets?${qs}`, { headers: owner });

  it('page[number]/page[size] are page/limit; links carry page and limit only', async () => {
    const r = await get('page[number]=2&page[size]=10&color=blue');
    expect(r.status).toBe(200);
    expect(r.json.meta).toEqual({ page: 2, limit: 10, total: 45, totalPages: 5 });
    expect(r.json.data[0].id).toBe('w_11');
    expect(r.json.links.next.replace(/&cursor=[A-Za-z0-9_-]+$/, '')).toBe(`${url}/v1/widgets?color=blue&page=3&limit=10`);
    expect(r.json.links.next).not.toContain('page%5B');
  });

  it('page[limit]/page[offset] are limit and a zero-based offset', async () => {
    const r = await get('page%5Blimit%5D=10&page%5Boffset%5D=20');
    expect(r.status).toBe(200);
    expect(r.json.meta).toMatchObject({ page: 3, limit: 10 });
    expect(r.json.data[0].id).toBe('w_21');
    expect((await get('page[offset]=0')).json.meta).toMatchObject({ page: 1, limit: 20 });
    expect((await get('page[size]=100')).json.data).toHaveLength(45);
    expect((await get('page[limit]=1')).json.data).toHaveLength(1);
  });

  it.each([
    ['page[size]=0', 'page[size]'], ['page[size]=101', 'page[size]'], ['page[limit]=abc', 'page[limit]'],
    ['page[number]=0', 'page[number]'], ['page[number]=-1', 'page[number]'], ['page[offset]=-10', 'page[offset]'],
    ['page[offset]=5&page[limit]=10', 'page[offset]'], ['page=1&page[number]=2', 'page[number]'], ['limit=5&page[size]=5', 'page[size]'],
  ])('rejects %s with 400 INVALID_QUERY naming %s', async (qs, parameter) => {
    const r = await get(qs);
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'INVALID_QUERY', source: { parameter } });
  });

  it('are documented on list operations', async () => {
    const doc = (await call(`${url}/v1/openapi.json`)).json;
    const names = doc.paths['/v1/widgets'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['page[number]', 'page[size]', 'page[limit]', 'page[offset]']));
    expect(doc.paths['/v1/widgets/{id}'].get.parameters.map((p: { name: string }) => p.name)).not.toContain('page[number]');
  });
});

describe('query parameters a route does not take (DECISIONS 1)', () => {
  const get = (path: string) => call(`${url}${path}`, { headers: owner });

  it('filter[<name>] is an alias of each documented filter', async () => {
    const plain = await get('/v1/widgets?color=blue&limit=1');
    const alias = await get('/v1/widgets?filter%5Bcolor%5D=blue&limit=1');
    expect(alias.status).toBe(200);
    expect(alias.json.data[0].attributes.color).toBe('blue');
    expect(alias.json.data).toEqual(plain.json.data);
    expect((await get('/v1/widgets?filter[color]=green')).json.errors[0]).toMatchObject({ code: 'INVALID_QUERY', source: { parameter: 'color' } });
  });

  it.each([
    ['/v1/widgets?bogus=1', 'bogus'],
    ['/v1/widgets?filter[size]=3', 'filter[size]'],
    ['/v1/widgets?color=red&filter[color]=blue', 'filter[color]'],
    ['/v1/widgets/w_1?limit=5', 'limit'],
    ['/v1/widgets/w_1?color=red', 'color'],
  ])('%s: 400 INVALID_QUERY naming %s', async (path, parameter) => {
    const r = await get(path);
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual([expect.objectContaining({ status: '400', code: 'INVALID_QUERY', source: { parameter } })]);
    expect(r.json.errors[0].detail).toContain(parameter);
  });

  it('sparse fieldsets stay accepted on any route', async () => {
    const r = await get('/v1/widgets/w_1?fields[widgets]=name');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.data.attributes)).toEqual(['name']);
  });

  it('the OpenAPI document lists each filter and its alias', async () => {
    const doc = (await call(`${url}/v1/openapi.json`)).json;
    const names = doc.paths['/v1/widgets'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['color', 'filter[color]']));
  });
});

describe('the OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => {
    doc = (await call(`${url}/v1/openapi.json`)).json;
  });

  it('names its servers (the listening URL by default, else the configured public URL), tags and license', async () => {
    expect(doc.servers).toEqual([{ url, description: expect.any(String) }]);
    const tags = doc.tags.map((t: { name: string }) => t.name);
    expect(tags).toEqual(['Admin', 'Health', 'Identity', 'Widgets']);
    for (const t of doc.tags) expect(t.description).toEqual(expect.any(String));
    expect(doc.info.license).toEqual({ name: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    const pub = await startApp({ openApi: { serverUrl: 'https://api.example.com/' } });
    try {
      expect((await call(`${pub.url}/v1/openapi.json`)).json.servers).toEqual([{ url: 'https://api.example.com', description: expect.any(String) }]);
    } finally {
      await pub.http.close();
    }
  });

  it('gives each resource a named schema, with its attributes named too', () => {
    const s = doc.components.schemas;
    expect(s.Widget).toMatchObject({ type: 'object', properties: { id: { type: 'string' }, type: { const: 'widgets' }, attributes: { $ref: '#/components/schemas/WidgetAttributes' } } });
    expect(s.WidgetAttributes.properties.name).toEqual({ type: 'string' });
    expect(s.ApiKey.properties.type.const).toBe('api-keys');
    expect(s.Thing.properties.type.const).toBe('things');
    expect(s.ListMeta.properties.totalPages).toMatchObject({ type: 'integer' });
    const list = doc.paths['/v1/widgets'].get.responses['200'].content['application/json'].schema;
    expect(list.properties).toEqual({ data: { type: 'array', items: { $ref: '#/components/schemas/Widget' } }, meta: { $ref: '#/components/schemas/ListMeta' }, links: { $ref: '#/components/schemas/ListLinks' } });
    const created = doc.paths['/v1/widgets'].post.responses['201'].content['application/vnd.api+json'].schema;
    expect(created.properties).toEqual({ data: { $ref: '#/components/schemas/Widget' }, jobId: { type: 'string' } });
    expect(JSON.stringify(doc)).not.toMatch(/x-resource-type|x-schema-name/);
  });

  it('names variants of one type: the shortest GET path is <Type>, others <Type><Handler>', () => {
    const base = { tag: 'Gadgets', auth: 'project' as const, summary: 's', controller: 'GadgetsController' };
    const attrs = z.object({ name: z.string() });
    const routes: RegisteredRoute[] = [
      { ...base, method: 'POST', path: '/v1/gadgets', routePath: '/v1/gadgets', handler: 'create', responses: { 201: resourceSchema('gadgets', attrs.extend({ secret: z.string() })) } },
      { ...base, method: 'GET', path: '/v1/gadgets/records', routePath: '/v1/gadgets/records', handler: 'listRecords', responses: { 200: collectionSchema('gadgets', attrs.extend({ externalId: z.string() })) } },
      { ...base, method: 'GET', path: '/v1/gadgets', routePath: '/v1/gadgets', handler: 'list', responses: { 200: collectionSchema('gadgets', attrs) } },
      { ...base, method: 'GET', path: '/v1/gadgets/:id', routePath: '/v1/gadgets/:id', handler: 'get', responses: { 200: resourceSchema('gadgets', attrs) } },
    ];
    const d = buildOpenApiDocument({}, routes) as any;
    const props = (n: string) => Object.keys(d.components.schemas[`${n}Attributes`].properties);
    expect(props('Gadget')).toEqual(['name']);
    expect(props('GadgetCreate')).toEqual(['name', 'secret']);
    expect(props('GadgetListRecords')).toEqual(['name', 'externalId']);
    expect(d.paths['/v1/gadgets/{id}'].get.responses['200'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/Gadget' });
    expect(d.paths['/v1/gadgets'].post.responses['201'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/GadgetCreate' });
  });

  it('singularises a type for its schema name', () => {
    expect(schemaNameOf('api-keys')).toBe('ApiKey');
    expect(schemaNameOf('cities')).toBe('City');
    expect(schemaNameOf('addresses')).toBe('Address');
    expect(schemaNameOf('databases')).toBe('Database');
    expect(schemaNameOf('catalog')).toBe('Catalog');
    expect(schemaNameOf('status')).toBe('Status');
  });

  it('documents every error status a route can answer', () => {
    const ops = {
      create: doc.paths['/v1/widgets'].post, list: doc.paths['/v1/widgets'].get,
      get: doc.paths['/v1/widgets/{id}'].get, ping: doc.paths['/v1/public/ping'].get,
    };
    const statuses = (op: { responses: Record<string, unknown> }) => Object.keys(op.responses).filter((s) => Number(s) >= 400).sort();
    expect(statuses(ops.create)).toEqual(['400', '401', '403', '409', '413', '415', '422', '429', '431', '500', '503']);
    expect(statuses(ops.list)).toEqual(['400', '401', '403', '429', '431', '500', '503']);
    expect(statuses(ops.get)).toEqual(['400', '401', '403', '404', '414', '429', '431', '500', '503']);
    expect(statuses(ops.ping)).toEqual(['400', '403', '429', '431', '500', '503']);
    expect(ops.create.responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
    expect(ops.get.responses['414']).toEqual({ $ref: '#/components/responses/UriTooLong' });
    expect(ops.create.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    expect(ops.list.responses['431']).toEqual({ $ref: '#/components/responses/RequestHeaderFieldsTooLarge' });
    expect(doc.components.responses.TooManyRequests.headers['Retry-After']).toBeDefined();
    for (const r of Object.values(doc.components.responses) as { content: Record<string, { schema: unknown }> }[]) {
      expect(r.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Errors' });
    }
    const route = routeRegistry().find((r) => r.path === '/v1/public/ping')!;
    expect(errorStatuses({ ...route, rateLimit: false })).not.toContain('429');
  });
});

describe('configuration and start-up', () => {
  it('PUBLIC_URL is validated and trimmed of its trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig({}).publicUrl).toBeUndefined();
    for (const bad of ['ftp://x.example', 'not a url', 'https://api.example.com/?a=1', 'https://u:p@api.example.com']) {
      expect(() => loadConfig({ PUBLIC_URL: bad })).toThrow(/PUBLIC_URL/);
    }
  });

  it('starts without a Fastify deprecation warning (and the listener does hear one)', async () => {
    expect(warnings.filter((c) => c.startsWith('FSTDEP'))).toEqual([]);
    // control: the same fastify copy with a deprecated option does warn, and is heard
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fastify = require(require.resolve('fastify', { paths: [dirname(require.resolve('@nestjs/platform-fastify'))] })) as (o: object) => { close(): Promise<void> };
    await fastify({ requestIdLogLabel: 'x' }).close();
    expect(warnings).toContain('FSTDEP024');
  });
});
