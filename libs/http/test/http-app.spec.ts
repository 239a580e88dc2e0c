import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { connect as tlsConnect } from 'node:tls';
import { call, calls, LogSink, owner, startApp } from './fixtures';
import type { HttpApp } from '../src';
import { createLogger, renderMetrics } from '../src';

let http: HttpApp;
let url: string;
let httpUrl: string | undefined;
let sink: LogSink;
let dataDir: string;

beforeAll(async () => {
  ({ http, url, httpUrl, sink, dataDir } = await startApp({ httpPort: 0 }));
});
afterAll(async () => http?.close());

describe('transport', () => {
  it('serves HTTPS with a self-signed pair generated once into <dataDir>/tls and reused', async () => {
    expect(url.startsWith('https://')).toBe(true);
    const cert = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
    expect(cert).toContain('BEGIN CERTIFICATE');
    const again = await startApp({ dataDir });
    try {
      expect(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8')).toBe(cert);
      expect((await call(`${again.url}/v1/public/ping`)).status).toBe(200);
    } finally {
      await again.http.close();
    }
    expect(existsSync(join(dataDir, 'tls', 'key.pem'))).toBe(true);
  });

  it('answers every plain-HTTP request with 403 HTTPS_REQUIRED', async () => {
    for (const [method, path] of [['GET', '/v1/widgets'], ['POST', '/v1/widgets'], ['GET', '/nope']]) {
      const r = await call(`${httpUrl}${path}`, { method, headers: { 'X-Request-Id': 'plain-1' } });
      expect(r.status).toBe(403);
      expect(r.json.errors[0]).toEqual({ status: '403', code: 'HTTPS_REQUIRED', detail: expect.any(String) });
      expect(r.headers['x-request-id']).toBe('plain-1');
    }
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const a = await call(`${url}/v1/public/ping`, { headers: { 'X-Request-Id': 'abc.DEF_123-x' } });
    expect(a.headers['x-request-id']).toBe('abc.DEF_123-x');
    const b = await call(`${url}/v1/public/ping`);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const c = await call(`${url}/v1/public/ping`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(c.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const d = await call(`${url}/v1/public/ping`, { headers: { 'X-Request-Id': 'a'.repeat(129) } });
    expect(d.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const e = await call(`${url}/nope`, { headers: { 'X-Request-Id': 'err-id' } });
    expect(e.headers['x-request-id']).toBe('err-id');
  });

  it('answers application/vnd.api+json when Accept asks for it, else application/json', async () => {
    const a = await call(`${url}/v1/widgets/w_1`, { headers: { ...owner, Accept: 'application/vnd.api+json' } });
    expect(a.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    const b = await call(`${url}/v1/widgets/w_1`, { headers: owner });
    expect(b.headers['content-type']).toMatch(/^application\/json/);
    const c = await call(`${url}/nope`, { headers: { Accept: 'application/vnd.api+json' } });
    expect(c.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
  });

  it('accepts both JSON media types (with charset) and rejects others with 415', async () => {
    for (const ct of ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'application/vnd.api+json; charset=UTF-8']) {
      const r = await call(`${url}/v1/widgets`, { method: 'POST', headers: { ...owner, 'content-type': ct }, body: { name: 'ok' } });
      expect(r.status).toBe(201);
    }
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const r = await call(`${url}/v1/widgets`, { method: 'POST', headers: { ...owner, 'content-type': ct }, raw: 'name=x' });
      expect(r.status).toBe(415);
      expect(r.json.errors[0].code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const noType = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, raw: '{"name":"x"}' });
    expect(noType.status).toBe(415);
  });

  it('rejects malformed JSON and JSON nested deeper than 32 with 400 BAD_REQUEST', async () => {
    const bad = await call(`${url}/v1/widgets`, { method: 'POST', headers: { ...owner, 'content-type': 'application/json' }, raw: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].code).toBe('BAD_REQUEST');
    const nest = (n: number) => '['.repeat(n - 1) + '{}' + ']'.repeat(n - 1);
    const deep = await call(`${url}/v1/widgets`, { method: 'POST', headers: { ...owner, 'content-type': 'application/json' }, raw: `{"name":"x","size":${nest(32)}}` });
    expect(deep.status).toBe(400);
    expect(deep.json.errors[0].detail).toMatch(/deeper than 32/);
    // depth exactly 32 passes the parser (and then fails field validation, not the depth rule)
    const ok = await call(`${url}/v1/widgets`, { method: 'POST', headers: { ...owner, 'content-type': 'application/json' }, raw: `{"name":"x","size":${nest(31)}}` });
    expect(ok.status).toBe(400);
    expect(ok.json.errors[0].source).toEqual({ pointer: '/size' });
  });

  it('rejects a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const r = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { name: 'x', pad: 'a'.repeat(1024 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.json.errors[0]).toMatchObject({ status: '413', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers every one of 90 concurrent clients writing 1.5 MiB bodies (with or without Content-Length) before reading with a 413 (never a broken pipe)', async () => {
    const u = new URL(url);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const chunks = 24; // 1.5 MiB: over the 1 MiB limit
    /** A client that writes its whole request, then reads the answer: the outcome is the answer, or the error that stopped the writing. */
    const writeThenRead = async (chunked: boolean): Promise<string> => {
      const socket = tlsConnect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, servername: 'localhost' });
      await once(socket, 'secureConnect');
      let received = '';
      let failed: string | null = null;
      socket.on('error', (e: NodeJS.ErrnoException) => (failed ??= e.code ?? e.message));
      const answered = new Promise<void>((resolve) => {
        socket.on('data', (c: Buffer) => {
          received += c.toString('latin1');
          if (received.includes('PAYLOAD_TOO_LARGE')) resolve();
        });
        socket.on('close', () => resolve());
      });
      const writable = () => new Promise<void>((resolve) => ['drain', 'close', 'error'].forEach((e) => socket.once(e, () => resolve())));
      const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${chunks * chunk.length}`;
      socket.write(`POST /v1/widgets HTTP/1.1\r\nHost: ${u.host}\r\nX-Service-API-Key: ${owner['X-Service-API-Key']}\r\nContent-Type: application/json\r\n${length}\r\n\r\n`);
      for (let i = 0; i < chunks && !failed && !socket.destroyed; i++) {
        const piece = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
        if (!socket.write(piece)) await writable();
      }
      if (chunked && !failed && !socket.destroyed) socket.write('0\r\n\r\n');
      const written = failed ?? (socket.destroyed ? 'closed while writing' : null);
      await answered;
      socket.destroy();
      return written ?? `${/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]} ${received.includes('PAYLOAD_TOO_LARGE') ? 'PAYLOAD_TOO_LARGE' : received.slice(0, 80)}`;
    };
    const outcomes = await Promise.all(Array.from({ length: 90 }, (_, i) => writeThenRead(i % 2 === 1)));
    expect(outcomes.filter((o) => o !== '413 PAYLOAD_TOO_LARGE')).toEqual([]);
  }, 120_000);

  it('a client that writes its whole oversize body before reading gets the 413, not a reset: the refused body is drained behind the answer', async () => {
    const u = new URL(url);
    const socket = tlsConnect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, servername: 'localhost' });
    await once(socket, 'secureConnect');
    let received = '';
    const answered = new Promise<void>((resolve) => socket.on('data', (c: Buffer) => { received += c.toString('latin1'); if (received.includes('PAYLOAD_TOO_LARGE')) resolve(); }));
    const errors: string[] = [];
    socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    socket.on('end', () => errors.push('closed by the server'));
    const writable = () => new Promise<void>((resolve) => ['drain', 'close', 'end', 'error'].forEach((e) => socket.once(e, () => resolve())));
    const size = 8 * 1024 * 1024;
    const head = `POST /v1/widgets HTTP/1.1\r\nHost: ${u.host}\r\nX-Service-API-Key: ${owner['X-Service-API-Key']}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    socket.write(head);
    // The answer comes before the body is sent (its Content-Length is over the limit); only then does
    // this client write the body, all of it, as a client that reads after writing would.
    await answered;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    for (let sent = 0; sent < size && errors.length === 0; sent += chunk.length) if (!socket.write(chunk)) await writable();
    // The connection survived the refused body: the next request on it is answered.
    received = '';
    const next = new Promise<void>((resolve) => socket.on('data', () => { if (/^HTTP\/1\.1 \d{3} [\s\S]*\r\n\r\n/.test(received)) resolve(); }));
    socket.write(`GET /v1/widgets HTTP/1.1\r\nHost: ${u.host}\r\nX-Service-API-Key: ${owner['X-Service-API-Key']}\r\n\r\n`);
    if (errors.length === 0) await Promise.race([next, writable()]);
    socket.destroy();
    expect(errors).toEqual([]);
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers 404 NOT_FOUND on unknown routes and 405 with Allow on known paths', async () => {
    const nf = await call(`${url}/v1/nothing-here`, { headers: owner });
    expect(nf.status).toBe(404);
    expect(nf.json.errors[0]).toMatchObject({ status: '404', code: 'NOT_FOUND' });
    const na = await call(`${url}/v1/widgets`, { method: 'PUT', headers: owner, body: {} });
    expect(na.status).toBe(405);
    expect(na.json.errors[0].code).toBe('METHOD_NOT_ALLOWED');
    expect(na.headers.allow?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST']));
    const na2 = await call(`${url}/v1/widgets/w_1`, { method: 'PATCH', headers: owner, body: {} });
    expect(na2.status).toBe(405);
    expect(na2.headers.allow?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'DELETE']));
    expect(na2.headers.allow).not.toContain('POST');
  });

  it('answers 500 INTERNAL_ERROR with the request id, no stack, and logs the stack', async () => {
    const r = await call(`${url}/v1/boom`, { headers: { 'X-Request-Id': 'boom-req-1' } });
    expect(r.status).toBe(500);
    expect(r.json.errors).toHaveLength(1);
    expect(r.json.errors[0]).toMatchObject({ status: '500', code: 'INTERNAL_ERROR' });
    expect(r.json.errors[0].detail).toContain('boom-req-1');
    expect(r.text).not.toMatch(/hunter2|at \/|\.ts:|stack/);
    const logged = sink.lines.find((l) => l.includes('boom-req-1') && l.includes('hunter2'));
    expect(logged).toBeDefined();
    expect(JSON.parse(logged!).err.stack).toContain('Error: internal detail');
  });
});

describe('body validation', () => {
  it('gives one error per offending field with flat pointers', async () => {
    const r = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { name: '', size: 0, extra: 1 } });
    expect(r.status).toBe(400);
    const pointers = r.json.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    expect(pointers).toEqual(['/extra', '/name', '/size']);
    for (const e of r.json.errors) expect(e).toMatchObject({ status: '400', code: 'BAD_REQUEST', detail: expect.any(String) });
  });

  it('accepts the JSON:API shape and points into /data/attributes', async () => {
    const ok = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { data: { type: 'widgets', attributes: { name: 'ja', size: 2 } } } });
    expect(ok.status).toBe(201);
    expect(ok.json.data).toMatchObject({ type: 'widgets', attributes: { name: 'ja', size: 2 } });
    expect(ok.json.jobId).toBe(`job_${ok.json.data.id}`);
    const bad = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { data: { type: 'widgets', attributes: { size: 'x', color: 'green' } } } });
    expect(bad.status).toBe(400);
    expect(bad.json.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/data/attributes/color', '/data/attributes/name', '/data/attributes/size']);
    const wrongType = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { data: { type: 'gadgets', attributes: { name: 'x' } } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.errors[0].source).toEqual({ pointer: '/data/type' });
  });

  it('rejects a missing body with 400', async () => {
    const r = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].code).toBe('BAD_REQUEST');
  });

  it('maps domain errors { code, message } through the code table', async () => {
    const c = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { name: 'taken' } });
    expect(c.status).toBe(409);
    expect(c.json.errors[0]).toEqual({ status: '409', code: 'CONFLICT', detail: 'Name already taken' });
    const s = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { name: 'locked' } });
    expect(s.status).toBe(409);
    expect(s.json.errors[0].code).toBe('INVALID_STATE');
  });

  it('answers a ZodError thrown by a handler or a decider with 400 and the edge\'s sentences, never zod\'s text or a 500', async () => {
    const flat = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { name: 'derived', size: 2 } });
    expect(flat.status).toBe(400);
    expect(flat.json.errors).toEqual([
      { status: '400', code: 'BAD_REQUEST', detail: 'size must be a number of at least 5', source: { pointer: '/size' } },
      { status: '400', code: 'BAD_REQUEST', detail: 'region is required', source: { pointer: '/region' } },
      { status: '400', code: 'BAD_REQUEST', detail: 'Unknown field: zone', source: { pointer: '/zone' } },
    ]);
    const doc = await call(`${url}/v1/widgets`, { method: 'POST', headers: owner, body: { data: { type: 'widgets', attributes: { name: 'invariant' } } } });
    expect(doc.status).toBe(400);
    const details = Object.fromEntries(doc.json.errors.map((e: { detail: string; source: { pointer: string } }) => [e.source.pointer, e.detail]));
    expect(details).toEqual({
      '/data/attributes/providerId': 'providerId must not be empty',
      '/data/attributes/publicKey': 'publicKey is required',
      '/data/attributes/algorithm': expect.stringMatching(/^algorithm (is required|must be )/),
      '/data/attributes/bits': 'bits must be an integer from -9007199254740991 to 9007199254740991',
      '/data/attributes/fingerprint': 'fingerprint is required',
      '/data/attributes/fingerprintMd5': 'fingerprintMd5 is required',
    });
    for (const r of [flat, doc]) expect(r.text).not.toMatch(/Invalid input|Too small|expected string|received/);
  });

  it('rejects bad path params with 400 and source.parameter', async () => {
    const r = await call(`${url}/v1/widgets/nope`, { headers: owner });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].source).toEqual({ parameter: 'id' });
    const nf = await call(`${url}/v1/widgets/w_404`, { headers: owner });
    expect(nf.status).toBe(404);
  });
});

describe('lists', () => {
  it('builds meta and absolute links keeping other query params', async () => {
    const r = await call(`${url}/v1/widgets?page=2&limit=10&color=blue&sort=name`, { headers: owner });
    expect(r.status).toBe(200);
    expect(r.json.meta).toEqual({ page: 2, limit: 10, total: 45, totalPages: 5 });
    expect(r.json.data).toHaveLength(10);
    expect(r.json.data[0]).toMatchObject({ id: 'w_11', type: 'widgets', attributes: { color: 'blue' } });
    const base = url.replace(/\/$/, '');
    const link = (p: number) => `${base}/v1/widgets?page=${p}&limit=10&color=blue&sort=name`;
    // next also carries the cursor (the page's last item) that spares the store skipping pages 1 and 2
    // and prev the cursor (the page's first item) before which the store takes page 1
    expect(r.json.links).toEqual({ first: link(1), last: link(5), prev: expect.stringMatching(/&cursor=[A-Za-z0-9_-]+$/), next: expect.stringMatching(/&cursor=[A-Za-z0-9_-]+$/) });
    expect(r.json.links.next.replace(/&cursor=.*$/, '')).toBe(link(3));
    expect(r.json.links.prev.replace(/&cursor=.*$/, '')).toBe(link(1));
  });

  it('omits prev on page 1 and next on the last page; last=1 when empty', async () => {
    const p1 = await call(`${url}/v1/widgets`, { headers: owner });
    expect(p1.json.meta).toEqual({ page: 1, limit: 20, total: 45, totalPages: 3 });
    expect(p1.json.links.prev).toBeUndefined();
    expect(p1.json.links.next).toContain('page=2');
    const last = await call(`${url}/v1/widgets?page=3`, { headers: owner });
    expect(last.json.data).toHaveLength(5);
    expect(last.json.links.next).toBeUndefined();
    expect(last.json.links.prev).toContain('page=2');
    const empty = await call(`${url}/v1/empty-things`, { headers: owner });
    expect(empty.json.meta).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
    expect(empty.json.links.last).toContain('page=1');
    expect(empty.json.links.next).toBeUndefined();
    expect(empty.json.links.prev).toBeUndefined();
  });

  it('parses sort (default newest first) and passes it to the handler', async () => {
    const d = await call(`${url}/v1/widgets?limit=1`, { headers: owner });
    expect(d.json.data[0].attributes.sort).toEqual([{ field: 'createdAt', direction: -1 }]);
    const s = await call(`${url}/v1/widgets?limit=1&sort=-name,size`, { headers: owner });
    expect(s.json.data[0].attributes.sort).toEqual([{ field: 'name', direction: -1 }, { field: 'size', direction: 1 }]);
  });

  it('applies fields[type] sparse fieldsets keeping id and type', async () => {
    const r = await call(`${url}/v1/widgets?limit=2&fields[widgets]=name,size`, { headers: owner });
    expect(r.json.data[0]).toEqual({ id: 'w_1', type: 'widgets', attributes: { name: 'w1', size: 1 } });
    const one = await call(`${url}/v1/widgets/w_1?fields%5Bwidgets%5D=name`, { headers: owner });
    expect(one.json.data).toEqual({ id: 'w_1', type: 'widgets', attributes: { name: 'one' } });
  });

  it.each([
    ['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=abc', 'limit'], ['page=0', 'page'], ['page=-1', 'page'],
    ['sort=bogus', 'sort'], ['sort=-secret', 'sort'], ['color=green', 'color'],
  ])('rejects %s with 400 INVALID_QUERY naming the parameter', async (qs, parameter) => {
    const r = await call(`${url}/v1/widgets?${qs}`, { headers: owner });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'INVALID_QUERY', source: { parameter } });
  });

  it('accepts the boundaries limit=1, limit=100', async () => {
    expect((await call(`${url}/v1/widgets?limit=1`, { headers: owner })).json.data).toHaveLength(1);
    expect((await call(`${url}/v1/widgets?limit=100`, { headers: owner })).json.data).toHaveLength(45);
  });
});

describe('authentication and authorization', () => {
  it('401 without or with an invalid credential', async () => {
    const none = await call(`${url}/v1/widgets`);
    expect(none.status).toBe(401);
    expect(none.json.errors[0]).toMatchObject({ status: '401', code: 'UNAUTHORIZED' });
    expect((await call(`${url}/v1/widgets`, { headers: { 'X-Service-API-Key': 'svc_test_wrong' } })).status).toBe(401);
    expect((await call(`${url}/v1/widgets`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await call(`${url}/v1/widgets`, { headers: { Authorization: 'Basic abc' } })).status).toBe(401);
  });

  it('accepts the API key header and a bearer token', async () => {
    expect((await call(`${url}/v1/widgets`, { headers: owner })).status).toBe(200);
    expect((await call(`${url}/v1/widgets`, { headers: { Authorization: 'Bearer jwt-owner' } })).status).toBe(200);
  });

  it('admin routes: project key 403, platform admin 200; project routes: platform admin 403', async () => {
    expect((await call(`${url}/v1/admin/stats`, { headers: owner })).status).toBe(403);
    expect((await call(`${url}/v1/admin/stats`)).status).toBe(401);
    const a = await call(`${url}/v1/admin/stats`, { headers: { 'X-Service-API-Key': 'platform_admin_key' } });
    expect(a.status).toBe(200);
    const p = await call(`${url}/v1/widgets`, { headers: { 'X-Service-API-Key': 'platform_admin_key' } });
    expect(p.status).toBe(403);
    expect(p.json.errors[0].code).toBe('FORBIDDEN');
  });

  it('applies role rules: viewer reads only, developer cannot manage keys', async () => {
    const viewer = { 'X-Service-API-Key': 'svc_test_viewer' };
    const dev = { 'X-Service-API-Key': 'svc_test_dev' };
    const admin = { 'X-Service-API-Key': 'svc_test_admin' };
    expect((await call(`${url}/v1/widgets`, { headers: viewer })).status).toBe(200);
    expect((await call(`${url}/v1/widgets`, { method: 'POST', headers: viewer, body: { name: 'v' } })).status).toBe(403);
    expect((await call(`${url}/v1/widgets/w_1`, { method: 'DELETE', headers: viewer })).status).toBe(403);
    expect((await call(`${url}/v1/widgets`, { method: 'POST', headers: dev, body: { name: 'd' } })).status).toBe(201);
    expect((await call(`${url}/v1/widgets/w_1`, { method: 'DELETE', headers: dev })).status).toBe(204);
    expect((await call(`${url}/v1/api-keys`, { method: 'POST', headers: dev, body: { name: 'k' } })).status).toBe(403);
    expect((await call(`${url}/v1/api-keys`, { method: 'POST', headers: viewer, body: { name: 'k' } })).status).toBe(403);
    expect((await call(`${url}/v1/api-keys`, { method: 'POST', headers: admin, body: { name: 'k' } })).status).toBe(201);
    expect((await call(`${url}/v1/api-keys`, { method: 'POST', headers: owner, body: { name: 'k' } })).status).toBe(201);
  });

  it('auth:none routes need no credential', async () => {
    const r = await call(`${url}/v1/public/ping`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ pong: true });
  });
});

describe('openapi and docs', () => {
  it('serves an OpenAPI 3.1 document of the registered routes without auth', async () => {
    const r = await call(`${url}/v1/openapi.json`);
    expect(r.status).toBe(200);
    const doc = r.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-Service-API-Key' });
    expect(doc.components.securitySchemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.stringContaining('RS256 or ES256') });
    const create = doc.paths['/v1/widgets'].post;
    expect(create.summary).toBe('Create a widget');
    expect(create.tags).toEqual(['Widgets']);
    const flat = create.requestBody.content['application/json'].schema.oneOf[0];
    expect(flat.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
    expect(flat.required).toEqual(['name']);
    expect(create.responses['201'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/Widget' });
    expect(doc.components.schemas.Widget.properties.type).toEqual({ type: 'string', const: 'widgets' });
    for (const s of ['400', '401', '403', '409', '422', '429', '500']) expect(create.responses[s]).toEqual({ $ref: expect.stringMatching(/^#\/components\/responses\/[A-Za-z]+$/) });
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    const list = doc.paths['/v1/widgets'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['page', 'limit', 'sort', 'fields[widgets]', 'color']));
    const get = doc.paths['/v1/widgets/{id}'].get;
    expect(get.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^w_\\d+$' } });
    expect(doc.paths['/v1/admin/stats'].get.security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
    expect(doc.paths['/v1/public/ping'].get.security).toEqual([]);
  });

  it('serves the swagger-ui page and its assets from local files', async () => {
    const r = await call(`${url}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/html/);
    expect(r.text).toContain('swagger-ui');
    expect(r.text).not.toMatch(/https?:\/\//);
    const js = await call(`${url}/docs/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.text.length).toBeGreaterThan(100_000);
    expect((await call(`${url}/docs/swagger-ui.css`)).status).toBe(200);
    expect((await call(`${url}/docs/init.js`)).text).toContain('/v1/openapi.json');
  });
});

describe('logging and metrics', () => {
  it('logs requests with request id, status, duration, redacting secrets', async () => {
    await call(`${url}/v1/widgets?api_key=supersecret&color=red`, { headers: { ...owner, 'X-Request-Id': 'log-req-1' } });
    const line = sink.lines.map((l) => JSON.parse(l)).find((l) => l.reqId === 'log-req-1' && l.msg === 'request completed');
    // api_key is no parameter of the route (400 INVALID_QUERY): refused, and still redacted in the log.
    expect(line).toMatchObject({ method: 'GET', statusCode: 400 });
    expect(typeof line.durationMs).toBe('number');
    expect(line.url).toContain('color=red');
    expect(sink.lines.join('\n')).not.toContain('supersecret');
    expect(sink.lines.join('\n')).not.toContain('svc_test_owner');
  });

  it('createLogger redacts credentials, cookies and *.apiKey/key/secret/password/credentials', () => {
    const out = new LogSink();
    const log = createLogger({ destination: out });
    log.info({
      req: { headers: { authorization: 'Bearer tok1', 'x-service-api-key': 'svc_live_tok2', cookie: 'sid=tok3', accept: 'x' } },
      provider: { apiKey: 'tok4', secret: 'tok5', name: 'visible' },
      user: { password: 'tok6', credentials: { a: 'tok7' } },
      webhook: { key: 'tok8' },
    }, 'hello');
    const text = out.lines.join('\n');
    for (let i = 1; i <= 8; i++) expect(text).not.toContain(`tok${i}`);
    expect(text).toContain('visible');
    expect(text).toContain('[REDACTED]');
  });

  it('records http metrics by route pattern', async () => {
    await call(`${url}/v1/widgets/w_7`, { headers: owner });
    const text = await renderMetrics();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/v1\/widgets\/:id",status="200"\} \d+/);
    expect(text).not.toContain('/v1/widgets/w_7');
    expect(text).toContain('http_request_duration_seconds_bucket');
  });

  it('counted each create call (sanity for idempotency specs)', () => {
    expect(calls.createWidget).toBeGreaterThan(0);
  });
});
