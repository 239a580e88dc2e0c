import fc from 'fast-check';
import { request } from 'node:https';
import { startTestServer, type TestServer } from '../support/test-server';

/**
 * Issue 16 §1 / DECISIONS 1: no client input answers 500. The concrete cases of the issue, then a
 * seeded, bounded property test that walks every operation of the OpenAPI document with generated
 * hostile bodies, path ids, queries and media types.
 */
const SEED = 16_0001;
const RUNS_PER_OPERATION = 4;
const STACK = /\n\s+at |at \S+ \(?\S+\.(ts|js):\d+|node_modules|\.(ts|js):\d+:\d+/;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer('embedded', { SIMULATOR_LATENCY: 'zero' });
});
afterAll(async () => {
  await srv?.stop();
});

const keyFor = (path: string) => (path.startsWith('/v1/admin') ? srv.bootstrap.adminKey : srv.bootstrap.apiKey);
const json = { 'content-type': 'application/json' };

interface Answer { status: number; text: string }

/**
 * Sends bytes as given, framed by Content-Length on every method (Node's client sends a GET or
 * DELETE body unframed, which the server can only read as a malformed next request), on a
 * connection of its own (a refused body may leave a kept-alive one closed under the next request).
 */
function send(method: string, path: string, key: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, srv.url),
      { method, agent: false, rejectUnauthorized: false, headers: { 'x-service-api-key': key, ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function expectNoServerError(res: Answer, what: string): void {
  if (res.status >= 500 || STACK.test(res.text)) throw new Error(`${what} → ${res.status} ${res.text.slice(0, 400)}`);
}

describe('the cases of issue 16 §1', () => {
  it('an API key name with NUL or a lone surrogate: 400 pointing at /name', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    for (const raw of ['{"name":"a\\u0000b"}', '{"name":"\\ud800"}', '{"data":{"type":"api-keys","attributes":{"name":"\\udfff"}}}']) {
      const res = await api.send('POST', '/v1/api-keys', raw, json);
      expect([res.status, res.body.errors[0].code]).toEqual([400, 'BAD_REQUEST']);
      expect(res.body.errors[0].source.pointer).toMatch(/^(\/data\/attributes)?\/name$/);
    }
  });

  it('a path id with NUL: 404 on GET and DELETE', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    for (const method of ['GET', 'DELETE']) {
      const res = await api.send(method, '/v1/providers/%00');
      expect([res.status, res.body.errors[0].code]).toEqual([404, 'NOT_FOUND']);
    }
    const nested = await api.get('/v1/instances/a%00b');
    expect(nested.status).toBe(404);
  });

  it('a query parameter with NUL: 400 INVALID_QUERY naming it; a missing one is said in words', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const nul = await api.get('/v1/ssh-keys?providerId=%00');
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([expect.objectContaining({ code: 'INVALID_QUERY', source: { parameter: 'providerId' } })]);
    const missing = await api.get('/v1/ssh-keys');
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ status: '400', code: 'INVALID_QUERY', detail: 'providerId is required', source: { parameter: 'providerId' } }]);
  });

  it('a tag key or value, a name, user_data or a batch id with NUL: 400 pointing at it', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const instance = { name: 'web', providerId: 'p', region: 'us-east-1', instanceType: 'pc-t3-medium' };
    const cases: [string, unknown, string][] = [
      ['/v1/instances', { ...instance, tags: { 'env\u0000': 'prod' } }, '/tags/env\u0000'],
      ['/v1/instances', { ...instance, tags: { env: 'pr\u0000od' } }, '/tags/env'],
      ['/v1/instances', { ...instance, tags: [{ key: 'env', value: '\ud800' }] }, '/tags/0/value'],
      ['/v1/instances', { ...instance, name: 'w\u0000b' }, '/name'],
      ['/v1/instances', { ...instance, user_data: '#!/bin/sh\u0000' }, '/user_data'],
      ['/v1/batch/batch/action', { action: 'stop', resourceType: 'instances', resourceIds: ['i\u0000'] }, '/resourceIds/0'],
    ];
    for (const [path, body, pointer] of cases) {
      const res = await api.post(path, body);
      expect([path, res.status, res.body.errors[0].code, res.body.errors[0].source]).toEqual([path, 400, 'BAD_REQUEST', { pointer }]);
    }
  });

  it('ESC, CR and LF in the name of a role or a project: 400 pointing at it (issue 24)', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const admin = srv.as(srv.bootstrap.adminKey);
    const cases: [typeof api, string, unknown, string][] = [
      [api, '/v1/iam/roles', { name: 'ops\u001b[31m', permissions: ['instances:read'] }, '/name'],
      [api, '/v1/iam/roles', { name: 'ops\r\nX-Forged: 1', permissions: ['instances:read'] }, '/name'],
      [admin, '/v1/admin/projects', { name: 'acme\nroot' }, '/name'],
    ];
    for (const [as, path, body, pointer] of cases) {
      const res = await as.post(path, body);
      expect([path, res.status, res.body.errors[0].code, res.body.errors[0].source]).toEqual([path, 400, 'BAD_REQUEST', { pointer }]);
    }
    expect((await api.post('/v1/iam/roles', { name: 'ops – Zoë', permissions: ['instances:read'] })).status).toBe(201);
  });

  it('a number out of range is said in words', async () => {
    const res = await srv.as(srv.bootstrap.apiKey).post('/v1/storage/volumes', { name: 'v', region: 'us-east-1', sizeGb: 1e12 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({ status: '400', code: 'BAD_REQUEST', detail: expect.stringMatching(/^sizeGb must be an integer from \d+ to \d+$/), source: { pointer: '/sizeGb' } });
  });
});

// ---------------------------------------------------------------- the property test
interface Operation { method: string; path: string; query: string[]; fields: string[]; hasBody: boolean }

const HOSTILE_CHARS = ['\u0000', '\ud800', '\udfff', '\udc00\ud800', '\u0001', '\u001b[31m', '\u202e', '\ufeff', '😀', '%00', '%', '../', '"', "'", '\\', '{{7*7}}', '${x}', '<script>', ' ', ''];
const hostileString = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom(...HOSTILE_CHARS), fc.string({ maxLength: 8 })), { maxLength: 6 }).map((parts) => parts.join('')),
  fc.constantFrom('x'.repeat(70_000), '\u0000'.repeat(1000), 'é'.repeat(5000)),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
/** Number tokens JSON.stringify cannot write (1e400 parses as Infinity): spliced into the text afterwards. */
const RAW_NUMBERS = ['1e400', '-1e400', '9007199254740993', '-0', '1e-400', '0.1e1', '123456789012345678901234567890'];
const rawNumber = fc.constantFrom(...RAW_NUMBERS).map((n) => `__raw:${n}__`);
const hostileNumber = fc.oneof(fc.constantFrom(0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE), fc.integer(), rawNumber);
const dangerousKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '$where', 'a.b', '');

const { value: hostileValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.constantFrom(true, false, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(fc.oneof(hostileString, dangerousKey), tie('value')), { maxLength: 3 }).map((entries) => Object.fromEntries(entries)),
  ),
}));

/** `depth` levels of arrays or objects around a value: past 32 the parser refuses it. */
const deep = fc.tuple(fc.integer({ min: 28, max: 40 }), fc.boolean(), hostileValue).map(([depth, arrays, leaf]) => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/** A body shaped like the operation's own (its field names, so values reach field validation and handlers), or anything. */
const bodyFor = (op: Operation) =>
  fc.oneof(
    fc.array(fc.tuple(op.fields.length ? fc.oneof(fc.constantFrom(...op.fields), dangerousKey) : dangerousKey, hostileValue), { minLength: 1, maxLength: 6 }).map((e) => Object.fromEntries(e)),
    fc.array(fc.tuple(dangerousKey, hostileValue), { maxLength: 2 }).map((e) => ({ data: { type: 'things', attributes: Object.fromEntries(e) } })),
    hostileValue,
    deep,
  );

const MEDIA_TYPES = ['application/json', 'application/json', 'application/vnd.api+json', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', ''];

/** Percent-encodes any string; a lone surrogate becomes its (invalid) three-byte UTF-8 form. */
function encode(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) out += `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}%${(0x80 | (c & 0x3f)).toString(16)}`.toUpperCase();
    else out += encodeURIComponent(ch);
  }
  return out;
}

/** Names of Object.prototype members: a lookup in a plain object keyed by a path id finds them (issue 24). */
const PROTOTYPE_IDS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'];

const hostileId = fc.oneof(fc.constantFrom('%00', 'a%00b', '%ED%A0%80', '%FF', '..', '%2e%2e', '%2F', 'x'.repeat(1100), '00000000-0000-0000-0000-000000000000', '%20', ...PROTOTYPE_IDS), hostileString.filter((s) => s.length > 0 && s.length < 500).map(encode));

const queryFor = (op: Operation) =>
  fc.array(fc.tuple(fc.oneof(...(op.query.length ? [fc.constantFrom(...op.query)] : []), fc.constantFrom('page', 'limit', 'sort', 'fields[x]', 'providerId', 'a%00'), hostileString.map(encode)), hostileString.filter((s) => s.length < 2000).map(encode)), { maxLength: 4 }).map((pairs) =>
    pairs.length ? '?' + pairs.map(([k, v]) => `${k.includes('%') ? k : encode(k)}=${v}`).join('&') : '',
  );

function serialize(body: unknown): string {
  return JSON.stringify(body).replace(/"__raw:([^"]+)__"/g, '$1');
}

function operations(doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: unknown }> } }>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // A stream (text/event-stream) answers a valid request with a body that never ends: events-stream.e2e reads those.
      if ((op as { responses?: Record<string, { content?: Record<string, unknown> }> }).responses?.['200']?.content?.['text/event-stream']) continue;
      const schema = Object.values(op.requestBody?.content ?? {})[0]?.schema as { properties?: Record<string, unknown>; anyOf?: { properties?: Record<string, unknown> }[] } | undefined;
      const fields = Object.keys(schema?.properties ?? schema?.anyOf?.find((s) => s.properties)?.properties ?? {});
      ops.push({ method: method.toUpperCase(), path, query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name), fields, hasBody: !!op.requestBody });
    }
  }
  return ops;
}

describe('hostile input against every operation of the OpenAPI document', () => {
  it('answers every templated route whose ids are names of Object.prototype members without a 500 (issue 24)', async () => {
    const doc = (await srv.anonymous.get('/v1/openapi.json')).body;
    const templated = operations(doc).filter((op) => op.path.includes('{'));
    expect(templated.length).toBeGreaterThan(50);
    // The cases of the issue first: they reach the handlers with a valid body.
    const concrete: [string, string, unknown][] = [
      ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((id): [string, string, unknown] => ['DELETE', `/v1/iam/roles/${id}`, undefined]),
      ['PATCH', '/v1/iam/roles/__proto__', { permissions: ['instances:read'] }],
      ['PATCH', '/v1/iam/roles/constructor', { name: 'x', permissions: ['instances:read'] }],
      ['GET', '/v1/iam/roles/toString', undefined],
    ];
    for (const [method, path, body] of concrete) {
      const res = await send(method, path, srv.bootstrap.apiKey, body === undefined ? undefined : JSON.stringify(body), body === undefined ? {} : json);
      expectNoServerError(res, `${method} ${path}`);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    for (const op of templated) {
      for (const id of PROTOTYPE_IDS) {
        const path = op.path.replace(/\{[^}]+\}/g, id);
        // No body, then one of the operation's own field names holding the id (so a lookup by a body value is reached too).
        const bodies = op.hasBody ? [undefined, '{}', JSON.stringify(Object.fromEntries(op.fields.map((f) => [f, id])))] : [undefined];
        for (const body of bodies) expectNoServerError(await send(op.method, path, keyFor(op.path), body, body === undefined ? {} : json), `${op.method} ${path} ${body ?? ''}`);
      }
    }
  }, 120_000);


  it(`answers no 500 and no stack trace (${RUNS_PER_OPERATION} generated requests per operation, seed ${SEED})`, async () => {
    const doc = (await srv.anonymous.get('/v1/openapi.json')).body;
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(100);
    const statuses = new Map<number, number>();
    for (const [index, op] of ops.entries()) {
      const request = fc.record({ ids: fc.array(hostileId, { minLength: 4, maxLength: 4 }), query: queryFor(op), body: bodyFor(op), mediaType: fc.constantFrom(...MEDIA_TYPES), sendBody: fc.boolean() });
      await fc.assert(
        fc.asyncProperty(request, async ({ ids, query, body, mediaType, sendBody }) => {
          let n = 0;
          const path = op.path.replace(/\{[^}]+\}/g, () => ids[n++ % ids.length]) + query;
          const withBody = op.hasBody || sendBody;
          const headers: Record<string, string> = withBody && mediaType ? { 'content-type': mediaType } : {};
          const what = `${op.method} ${path.slice(0, 300)} (${path.length} chars) ${mediaType} ${withBody ? serialize(body).slice(0, 300) : ''}`;
          const res = await send(op.method, path, keyFor(op.path), withBody ? serialize(body) : undefined, headers).catch((e: Error) => Promise.reject(new Error(`${what} → ${e.message}`)));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expectNoServerError(res, what);
        }),
        { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
    }
    // The walk reached refusals of every kind, not only one early gate.
    for (const status of [400, 404, 415]) expect(statuses.get(status)).toBeGreaterThan(0);
  }, 120_000);
});
