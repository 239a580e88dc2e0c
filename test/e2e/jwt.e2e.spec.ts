import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, type KeyLike } from 'jose';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import type { TestResponse } from '../support/http-client';

/** Identity-provider JWTs (DECISIONS 3): verified against a configured issuer and JWKS, RS256/ES256 only. */

const ISSUER = 'https://idp.test.local/';
const AUDIENCE = 'cloud-api';
const now = () => Math.floor(Date.now() / 1000);

interface SigningKey { kid: string; alg: 'RS256' | 'ES256'; privateKey: KeyLike; publicKey: KeyLike; publicJwk: JWK }

/** `publishAlg: false` leaves `alg` out of the JWK, as many identity providers do. */
async function signingKey(alg: 'RS256' | 'ES256', kid: string, publishAlg = true): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, ...(publishAlg ? { alg } : {}), use: 'sig' } };
}

/** A local JWKS endpoint on 127.0.0.1 (no internet) that counts its fetches. */
async function serveJwks(jwks: { keys: JWK[] }): Promise<{ url: string; fetches: () => number; close: () => Promise<void> }> {
  let fetches = 0;
  const server = http.createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    fetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function expectUnauthorized(res: TestResponse) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ errors: [expect.objectContaining({ status: '401', code: 'UNAUTHORIZED', detail: 'Invalid credentials' })] });
  expect(res.text).not.toMatch(/stack|at .+\.(ts|js):\d+|JWS|JWT|jose|signature|claim|expired/i);
}

let rsa: SigningKey;
let ec: SigningKey;
let stranger: SigningKey; // never published
let tmp: string;
let jwksFile: string;

beforeAll(async () => {
  rsa = await signingKey('RS256', 'rsa-1', false);
  ec = await signingKey('ES256', 'ec-1');
  stranger = await signingKey('RS256', 'stranger-1');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-jwks-'));
  jwksFile = path.join(tmp, 'jwks.json');
  fs.writeFileSync(jwksFile, JSON.stringify({ keys: [rsa.publicJwk, ec.publicJwk] }));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

type Source = 'file' | 'url';

describe.each<[Profile, Source]>([
  ['embedded', 'file'],
  ['server', 'url'],
])('bearer JWTs (%s profile, JWKS from a %s)', (profile, source) => {
  // The server profile also exercises configurable claim names.
  const projectClaim = source === 'url' ? 'https://cloud.example/project' : 'project';
  const roleClaim = source === 'url' ? 'cloud_role' : 'role';
  let srv: TestServer;
  let jwks: Awaited<ReturnType<typeof serveJwks>> | undefined;
  let projectA: string;
  let projectB: string;
  let projectBKeyId: string;
  const tokens: string[] = [];

  /** A token for `project` with sensible defaults; `claims` overrides or (with undefined) removes claims. */
  async function token(opts: { key?: SigningKey; kid?: string; claims?: Record<string, unknown>; role?: string | null; project?: string | null } = {}): Promise<string> {
    const key = opts.key ?? rsa;
    const claims: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat: now(), exp: now() + 300 };
    if (opts.project !== null) claims[projectClaim] = opts.project ?? projectA;
    if (opts.role !== null) claims[roleClaim] = opts.role ?? 'admin';
    for (const [k, v] of Object.entries(opts.claims ?? {})) {
      if (v === undefined) delete claims[k];
      else claims[k] = v;
    }
    const jwt = await new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: key.alg, kid: opts.kid ?? key.kid, typ: 'JWT' }).sign(key.privateKey);
    tokens.push(jwt);
    return jwt;
  }
  const bearer = (jwt: string) => ({ Authorization: `Bearer ${jwt}` });
  const as = (jwt: string) => ({
    get: (p: string) => srv.anonymous.get(p, bearer(jwt)),
    post: (p: string, body?: unknown) => srv.anonymous.post(p, body, bearer(jwt)),
    delete: (p: string) => srv.anonymous.delete(p, bearer(jwt)),
  });

  beforeAll(async () => {
    const env: Record<string, string> = { JWT_ISSUER: ISSUER, JWT_AUDIENCE: `${AUDIENCE},another-api`, JWT_CLOCK_TOLERANCE_S: '30' };
    if (source === 'url') {
      jwks = await serveJwks({ keys: [rsa.publicJwk, ec.publicJwk] });
      Object.assign(env, { JWT_JWKS_URL: jwks.url, JWT_PROJECT_CLAIM: projectClaim, JWT_ROLE_CLAIM: roleClaim });
    } else {
      env.JWT_JWKS_FILE = jwksFile;
    }
    srv = await startTestServer(profile, env);
    projectA = srv.bootstrap.projectId;
    const other = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: 'tenant two' });
    expect(other.status).toBe(201);
    projectB = other.body.data.id;
    projectBKeyId = other.body.included[0].id;
  });
  afterAll(async () => {
    await srv?.stop();
    await jwks?.close();
  });

  it('accepts a valid RS256 token: the member reads its project and only its project', async () => {
    const res = await as(await token()).get('/v1/api-keys?limit=100');
    expect(res.status).toBe(200);
    const prefixes = res.body.data.map((k: { attributes: { prefix: string } }) => k.attributes.prefix);
    expect(prefixes).toContain(srv.bootstrap.apiKey.slice(0, 12));
    expect(res.body.data.map((k: { id: string }) => k.id)).not.toContain(projectBKeyId);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    if (jwks) expect(jwks.fetches()).toBeGreaterThanOrEqual(1);

    const theirs = await as(await token({ project: projectB, claims: { sub: 'bob' } })).get('/v1/api-keys?limit=100');
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.map((k: { id: string }) => k.id)).toEqual([projectBKeyId]);
  });

  it('accepts a valid ES256 token', async () => {
    const res = await as(await token({ key: ec })).get('/v1/api-keys?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.data.map((k: { attributes: { prefix: string } }) => k.attributes.prefix)).toContain(srv.bootstrap.apiKey.slice(0, 12));
  });

  it('honours the clock tolerance for exp and nbf, and accepts any configured audience', async () => {
    expect((await as(await token({ claims: { exp: now() - 5 } })).get('/v1/api-keys')).status).toBe(200);
    expect((await as(await token({ claims: { nbf: now() + 5 } })).get('/v1/api-keys')).status).toBe(200);
    expect((await as(await token({ claims: { aud: ['someone-else', 'another-api'] } })).get('/v1/api-keys')).status).toBe(200);
  });

  it('rejects every token that fails a check with the same 401 and no detail', async () => {
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', [projectClaim]: projectA, [roleClaim]: 'owner', exp: now() + 300 };
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode('an-hmac-secret-of-at-least-32-bytes!!'));
    // The classic confusion attack: the published RSA public key used as an HMAC secret.
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey)));
    const unsecured = new UnsecuredJWT(claims).encode();
    // Signed by the published RSA key, but with an algorithm outside RS256/ES256 (the JWK names none).
    const ps256 = await new SignJWT(claims).setProtectedHeader({ alg: 'PS256', kid: rsa.kid }).sign(rsa.privateKey);
    const valid = await token();
    const [h, p, s] = valid.split('.');
    const tamperedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), [roleClaim]: 'owner', sub: 'mallory' })).toString('base64url');

    const cases: Record<string, string> = {
      'wrong issuer': await token({ claims: { iss: 'https://evil.example/' } }),
      'wrong audience': await token({ claims: { aud: 'some-other-api' } }),
      'no audience': await token({ claims: { aud: undefined } }),
      expired: await token({ claims: { exp: now() - 120 } }),
      'not yet valid': await token({ claims: { nbf: now() + 120 } }),
      'no exp': await token({ claims: { exp: undefined } }),
      'HS256-signed': hs256,
      'HS256 with the RSA public key as secret': confused,
      'alg none': unsecured,
      'PS256 (the right key, a refused algorithm)': ps256,
      'signed by an unknown key (unknown kid)': await token({ key: stranger }),
      'signed by an unknown key (known kid)': await token({ key: stranger, kid: rsa.kid }),
      'tampered payload': `${h}.${tamperedPayload}.${s}`,
      'missing project claim': await token({ project: null }),
      'missing sub': await token({ claims: { sub: undefined } }),
      'non-string project claim': await token({ claims: { [projectClaim]: 42 } }),
      'unknown project': await token({ project: randomUUID() }),
      'unknown role': await token({ role: 'superuser' }),
      'three segments of garbage': 'abc.def.ghi',
    };
    for (const [name, jwt] of Object.entries(cases)) {
      tokens.push(jwt);
      const res = await as(jwt).get('/v1/api-keys');
      try {
        expectUnauthorized(res);
      } catch (err) {
        throw new Error(`${name}: ${res.status} ${res.text}\n${(err as Error).message}`);
      }
    }
    // The valid token these were derived from still works, so the 401s are the checks' doing.
    expect((await as(valid).get('/v1/api-keys')).status).toBe(200);
  });

  it('scopes a member to its project: another project\'s ids answer 404', async () => {
    // A member acts in live mode: it sees what live credentials made (the bootstrap key is a test key).
    const memberA = as(await token({ role: 'owner' }));
    const providerA = await memberA.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'demo' });
    expect(providerA.status).toBe(201);
    expect((await memberA.get(`/v1/providers/${providerA.body.data.id}`)).status).toBe(200);
    const memberB = as(await token({ project: projectB, role: 'owner', claims: { sub: 'bob' } }));
    const got = await memberB.get(`/v1/providers/${providerA.body.data.id}`);
    expect(got.status).toBe(404);
    expect(got.body.errors[0]).toMatchObject({ status: '404', code: 'NOT_FOUND' });
    const mineA = (await memberA.get('/v1/api-keys?limit=100')).body.data[0].id as string;
    const del = await memberB.delete(`/v1/api-keys/${mineA}`);
    expect(del.status).toBe(404);
    expect((await memberA.get('/v1/api-keys?limit=100')).body.data.find((k: { id: string }) => k.id === mineA).attributes.revoked).toBe(false);
  });

  it('applies the role claim: viewer (also when absent) reads only, developer cannot manage keys, admin can', async () => {
    for (const role of ['viewer', null]) {
      const viewer = as(await token({ role }));
      expect((await viewer.get('/v1/api-keys')).status).toBe(200);
      const write = await viewer.post('/v1/api-keys', { name: 'nope' });
      expect(write.status).toBe(403);
      expect(write.body.errors[0]).toMatchObject({ status: '403', code: 'FORBIDDEN' });
    }
    const developer = as(await token({ role: 'developer', claims: { sub: 'dave' } }));
    expect((await developer.post('/v1/api-keys', { name: 'nope' })).status).toBe(403);
    expect((await developer.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'demo' })).status).toBe(403);
    const admin = as(await token({ role: 'admin', claims: { sub: 'carol@example.com' } }));
    const created = await admin.post('/v1/api-keys', { name: 'made by carol' });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes.key).toMatch(/^svc_live_/);
    expect(created.body.data.attributes.mode).toBe('live'); // a signed-in member acts in live mode
    const provider = await admin.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'x' });
    expect(provider.status).toBe(201);
    const template = await developer.post('/v1/templates', { name: 'web', providerId: provider.body.data.id, region: 'NYC', instanceType: 'c2-small-x86' });
    expect(template.status).toBe(201);
    expect(template.body.data.attributes).toMatchObject({ name: 'web', providerId: provider.body.data.id });
    expect((await as(await token({ role: 'viewer' })).get(`/v1/templates/${template.body.data.id}`)).status).toBe(200);
    expect((await as(await token({ role: null })).post('/v1/templates', { name: 'no', providerId: provider.body.data.id, region: 'NYC', instanceType: 'c2-small-x86' })).status).toBe(403);

    // The event records the member as the actor, in the member's project.
    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
    const issued = events.find((e) => e.type === 'identity.ApiKeyIssued.v1' && (e.data as { keyId: string }).keyId === created.body.data.id);
    expect(issued?.metadata).toMatchObject({ actor: 'member:carol@example.com', projectId: projectA });
    // lastUsedAt is for keys only: a member's requests never record a key use.
    expect(events.some((e) => e.type === 'identity.ApiKeyUsed.v1' && String((e.metadata as { actor?: string }).actor).startsWith('member:'))).toBe(false);
  });

  it('keeps platform-admin routes closed to members (403), whatever their role', async () => {
    const owner = as(await token({ role: 'owner' }));
    for (const res of [await owner.post('/v1/admin/projects', { name: 'nope' }), await owner.get('/v1/admin/projects'), await owner.get('/v1/admin/subscriptions')]) {
      expect(res.status).toBe(403);
      expect(res.body.errors[0]).toMatchObject({ status: '403', code: 'FORBIDDEN' });
    }
  });

  it('still accepts API keys, in both headers', async () => {
    expect((await srv.as(srv.bootstrap.apiKey).get('/v1/api-keys')).status).toBe(200);
    expect((await srv.anonymous.get('/v1/api-keys', bearer(srv.bootstrap.apiKey))).status).toBe(200);
    // A JWT is only taken from Authorization: Bearer.
    expectUnauthorized(await srv.as(await token()).get('/v1/api-keys'));
  });

  it('never logs a token', () => {
    expect(tokens.length).toBeGreaterThan(20);
    const logs = srv.logs();
    for (const t of tokens) {
      expect(logs).not.toContain(t);
      const signature = t.split('.')[2];
      if (signature) expect(logs).not.toContain(signature);
    }
  });
});

describe('bearer JWTs when JWT_ISSUER is not set (embedded profile)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer('embedded');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers a valid-looking JWT 401 and keeps accepting API keys as bearer tokens', async () => {
    const jwt = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', project: srv.bootstrap.projectId, role: 'owner' })
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .setExpirationTime('5m')
      .sign(rsa.privateKey);
    expectUnauthorized(await srv.anonymous.get('/v1/api-keys', { Authorization: `Bearer ${jwt}` }));
    expect((await srv.anonymous.get('/v1/api-keys', { Authorization: `Bearer ${srv.bootstrap.apiKey}` })).status).toBe(200);
  });
});

describe('bearer JWTs with an unreachable JWKS endpoint (embedded profile)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // A port that was just free: nothing listens there.
    const probe = await serveJwks({ keys: [] });
    await probe.close();
    srv = await startTestServer('embedded', { JWT_ISSUER: ISSUER, JWT_JWKS_URL: probe.url });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers 503 UNAVAILABLE (an outage, not a bad token) without details, while API keys keep working', async () => {
    const jwt = await new SignJWT({ iss: ISSUER, sub: 'alice', project: srv.bootstrap.projectId })
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .setExpirationTime('5m')
      .sign(rsa.privateKey);
    const res = await srv.anonymous.get('/v1/api-keys', { Authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(503);
    expect(res.body.errors[0]).toMatchObject({ status: '503', code: 'UNAVAILABLE' });
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .+\.(ts|js):\d+/);
    expect(srv.logs()).not.toContain(jwt.split('.')[2]);
    expect((await srv.as(srv.bootstrap.apiKey).get('/v1/api-keys')).status).toBe(200);
  });
});
