import { randomUUID } from 'node:crypto';
import { routeRegistry, routesLackingPermission } from '../../libs/http/src/route';
import { startTestServer, type TestServer } from '../support/test-server';
import type { TestResponse } from '../support/http-client';

/**
 * Permissions on every route (issue 13, DECISIONS 3 and 15): for every operation of the OpenAPI
 * document that a project credential calls and every built-in role, the answer is 403 FORBIDDEN
 * exactly when the role lacks the operation's `x-permission`.
 */

type Role = 'owner' | 'admin' | 'developer' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];

/** DECISIONS 3, written out here independently of libs/domain/identity/roles.ts so the two must agree. */
const NOT_FOR_DEVELOPERS = ['api-keys', 'members', 'roles', 'invitations', 'workspaces', 'billing', 'wallets', 'payments', 'invoices', 'providers', 'provider-keys'];
function decisionsAllow(role: Role, permission: string): boolean {
  const [resource, action] = permission.split(':');
  if (role === 'owner' || role === 'admin') return true;
  if (action === 'read') return true;
  return role === 'developer' && !NOT_FOR_DEVELOPERS.includes(resource);
}

/** `stream`: a text/event-stream answer never ends; a permitted call is sent with an invalid position, so it is refused after authorisation (400), not followed. */
interface Operation { method: string; path: string; permission: string; stream: boolean }

function projectOperations(doc: { paths: Record<string, Record<string, { 'x-permission'?: string; security?: unknown[] }>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) if (op['x-permission']) ops.push({ method: method.toUpperCase(), path, permission: op['x-permission'], stream: !!(op as { responses?: Record<string, { content?: Record<string, unknown> }> }).responses?.['200']?.content?.['text/event-stream'] });
  }
  return ops;
}

/** Harmless inputs: unknown ids in the path, an empty body; nothing is created or started. */
const send = (as: TestServer['anonymous'], op: Operation): Promise<TestResponse> => {
  const url = op.path.replace(/\{[^}]+\}/g, () => randomUUID()) + (op.stream ? '?after=-1' : '');
  return as.send(op.method, url, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
};

async function keysPerRole(srv: TestServer): Promise<Record<Role, TestServer['anonymous']>> {
  const owner = srv.as(srv.bootstrap.apiKey);
  const clients = { owner } as Record<Role, TestServer['anonymous']>;
  for (const role of ROLES.filter((r) => r !== 'owner')) {
    const created = await owner.post('/v1/api-keys', { name: `role ${role}`, role });
    expect(created.status).toBe(201);
    expect(created.body.data.attributes.role).toBe(role);
    clients[role] = srv.as(created.body.data.attributes.key);
  }
  return clients;
}

describe('permissions on every route (embedded profile)', () => {
  let srv: TestServer;
  let as: Record<Role, TestServer['anonymous']>;
  let operations: Operation[];

  beforeAll(async () => {
    srv = await startTestServer('embedded');
    as = await keysPerRole(srv);
    const doc = await srv.anonymous.get('/v1/openapi.json');
    expect(doc.status).toBe(200);
    operations = projectOperations(doc.body);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('every project route of the built app declares one resource:action permission, shown in the document', () => {
    expect(routesLackingPermission().map((r) => `${r.method} ${r.path}`)).toEqual([]);
    const projectRoutes = routeRegistry().filter((r) => r.auth === 'project');
    expect(operations).toHaveLength(projectRoutes.length);
    expect(operations.length).toBeGreaterThan(100);
    for (const op of operations) expect(op.permission).toMatch(/^[a-z][a-z0-9-]*:(read|write)$/);
  });

  it('answers 403 FORBIDDEN exactly when the role lacks the permission, for every route and built-in role', async () => {
    const wrong: string[] = [];
    let forbidden = 0;
    for (const op of operations) {
      for (const role of ROLES) {
        const res = await send(as[role], op);
        const allowed = decisionsAllow(role, op.permission);
        if (!allowed) forbidden += 1;
        const ok = allowed ? res.status !== 403 && res.status < 500 : res.status === 403 && res.body?.errors?.[0]?.code === 'FORBIDDEN';
        if (!ok) wrong.push(`${role} ${op.method} ${op.path} (${op.permission}): ${res.status} ${res.body?.errors?.[0]?.code ?? ''}`);
      }
    }
    expect(wrong).toEqual([]);
    // The table has both outcomes: viewers are refused every write, developers the management ones.
    expect(forbidden).toBeGreaterThan(operations.filter((o) => o.permission.endsWith(':write')).length);
  });

  it('publishes the catalogue at GET /v1/iam/permissions, generated from the declarations, paginated', async () => {
    const all: Array<{ id: string; attributes: { resource: string; action: string; roles: Role[]; routes: Array<{ method: string; path: string }> } }> = [];
    for (let page = 1; ; page++) {
      const res = await as.viewer.get(`/v1/iam/permissions?page=${page}&limit=10`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({ page, limit: 10 });
      all.push(...res.body.data);
      if (page * 10 >= res.body.meta.total) break;
    }
    const declared = [...new Set(operations.map((o) => o.permission))].sort();
    expect(all.map((p) => p.id)).toEqual(declared);
    for (const p of all) {
      expect(p.id).toBe(`${p.attributes.resource}:${p.attributes.action}`);
      expect(p.attributes.roles).toEqual(ROLES.filter((r) => decisionsAllow(r, p.id)));
      const routes = operations.filter((o) => o.permission === p.id).map((o) => `${o.method} ${o.path}`).sort();
      expect(p.attributes.routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(routes);
    }
    expect(all.find((p) => p.id === 'api-keys:write')?.attributes.routes).toEqual(
      expect.arrayContaining([expect.objectContaining({ method: 'POST', path: '/v1/api-keys' }), expect.objectContaining({ method: 'DELETE', path: '/v1/api-keys/{id}' })]),
    );

    const developer = await as.viewer.get('/v1/iam/permissions?role=developer&resource=providers');
    expect(developer.body.data.map((p: { id: string }) => p.id)).toEqual(['providers:read']);
    const bad = await as.viewer.get('/v1/iam/permissions?role=superuser');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('INVALID_QUERY');
  });
});

describe('permissions (server profile sanity)', () => {
  it('refuses a viewer a write and lets it read, and an admin key may not make an owner key', async () => {
    const srv = await startTestServer('server');
    try {
      const owner = srv.as(srv.bootstrap.apiKey);
      const viewer = srv.as((await owner.post('/v1/api-keys', { name: 'viewer', role: 'viewer' })).body.data.attributes.key);
      const write = await viewer.post('/v1/ssh-keys', {});
      expect(write.status).toBe(403);
      expect(write.body.errors[0]).toMatchObject({ code: 'FORBIDDEN' });
      expect((await viewer.get('/v1/api-keys')).status).toBe(200);
      expect((await viewer.get('/v1/iam/permissions')).status).toBe(200);
      const admin = srv.as((await owner.post('/v1/api-keys', { name: 'admin' })).body.data.attributes.key);
      const escalate = await admin.post('/v1/api-keys', { name: 'owner?', role: 'owner' });
      expect(escalate.status).toBe(403);
      expect(escalate.body.errors[0].code).toBe('FORBIDDEN');
    } finally {
      await srv.stop();
    }
  });
});
