import { startIdentityProvider, type IdentityProvider } from '../support/jwks';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { client, type TestResponse } from '../support/http-client';

/**
 * Workspaces (DECISIONS 15): "A workspace groups the projects of one organization;
 * /v1/workspaces/members manages the members of the caller's workspace, who may act in every project
 * of it with their workspace role." Projects A and B share a workspace, C has its own.
 */

const ISSUER = 'https://idp.workspaces.test/';
type Api = ReturnType<TestServer['as']>;
type Created = { id: string; workspaceId: string; api: Api };

let idp: IdentityProvider;

beforeAll(async () => {
  idp = await startIdentityProvider(ISSUER, 'workspaces');
});
afterAll(() => idp.cleanup());

const ids = (res: TestResponse) => (res.body.data as { id: string }[]).map((m) => m.id);

describe.each<Profile>(['embedded', 'server'])('workspaces group projects; their members act in each (%s profile)', (profile) => {
  let srv: TestServer;
  let admin: Api;
  let a: Created;
  let b: Created;
  let c: Created;

  /** A token the identity provider would issue for `project`; its role claim says owner, but the registries decide. */
  async function signedIn(project: Created, email: string) {
    const token = await idp.sign(`idp|${email}`, { project: project.id, role: 'owner', email });
    return client(srv.url, { Authorization: `Bearer ${token}` });
  }

  async function createProject(name: string, workspaceId?: string): Promise<Created> {
    const res = await admin.post('/v1/admin/projects', { name, ...(workspaceId ? { workspaceId } : {}) });
    expect(res.status).toBe(201);
    return { id: res.body.data.id, workspaceId: res.body.data.attributes.workspaceId, api: srv.as(res.body.included[0].attributes.key) };
  }

  beforeAll(async () => {
    srv = await startTestServer(profile, { JWT_ISSUER: ISSUER, JWT_JWKS_FILE: idp.jwksFile });
    admin = srv.as(srv.bootstrap.adminKey);
    a = await createProject('ws-a');
    b = await createProject('ws-b', a.workspaceId);
    c = await createProject('ws-c');
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('creates a project in its own workspace (its id) or in the workspace it names; an unknown workspace is 404', async () => {
    expect(a.workspaceId).toBe(a.id);
    expect(b.workspaceId).toBe(a.id);
    expect(c.workspaceId).toBe(c.id);
    // Recorded on the project's own stream.
    const [created] = await srv.platform.events.readStream(`project-${b.id}`);
    expect(created).toMatchObject({ type: 'identity.ProjectCreated.v1', data: { projectId: b.id, workspaceId: a.id } });

    // B is a project of A's workspace, not a workspace: as unknown as any other id.
    for (const workspaceId of ['nope', b.id, '0190a0a0-0000-7000-8000-000000000000']) {
      const res = await admin.post('/v1/admin/projects', { name: 'ws-lost', workspaceId });
      expect({ workspaceId, status: res.status, code: res.body.errors?.[0]?.code }).toEqual({ workspaceId, status: 404, code: 'NOT_FOUND' });
    }
    expect((await admin.post('/v1/admin/projects', { name: 'ws-empty', workspaceId: '' })).status).toBe(400);
    const listed = await admin.get('/v1/admin/projects?limit=100');
    const workspaces = Object.fromEntries((listed.body.data as { id: string; attributes: { workspaceId: string } }[]).map((p) => [p.id, p.attributes.workspaceId]));
    expect(workspaces).toMatchObject({ [srv.bootstrap.projectId]: srv.bootstrap.projectId, [a.id]: a.id, [b.id]: a.id, [c.id]: c.id });
    expect(Object.values(workspaces).filter((w) => w === a.id)).toHaveLength(2);
  });

  it('lets a workspace member added from A act in B with the workspace role, keeps them unknown in C, and removing them from B removes them from A too', async () => {
    // C's registry has a member, so C judges tokens by its registries rather than by the role claim.
    expect((await c.api.post('/v1/iam/members', { email: 'carl@example.com', role: 'viewer' })).status).toBe(201);

    const added = await a.api.post('/v1/workspaces/members', { email: 'Wendy@Example.com', role: 'viewer' });
    expect(added.status).toBe(201);
    const wendy = added.body.data.id as string;
    expect(ids(await a.api.get('/v1/workspaces/members'))).toEqual([wendy]);
    expect(ids(await b.api.get('/v1/workspaces/members'))).toEqual([wendy]);
    expect(ids(await c.api.get('/v1/workspaces/members'))).toEqual([]);
    // A workspace member is no project member of either project.
    expect(ids(await a.api.get('/v1/iam/members'))).not.toContain(wendy);
    expect(ids(await b.api.get('/v1/iam/members'))).not.toContain(wendy);

    const inA = await signedIn(a, 'wendy@example.com');
    const inB = await signedIn(b, 'WENDY@example.com');
    const inC = await signedIn(c, 'wendy@example.com');

    // viewer: reads in B, writes nothing (the token's role claim said owner).
    expect((await inB.get('/v1/instances')).status).toBe(200);
    expect((await inB.post('/v1/support', { subject: 'viewer', message: 'no' })).status).toBe(403);
    // member (acts as developer), changed from B's key: writes resources, manages no key or member.
    expect((await b.api.patch(`/v1/workspaces/members/${wendy}`, { role: 'member' })).body.data.attributes.role).toBe('member');
    expect((await inB.post('/v1/support', { subject: 'member', message: 'from B' })).status).toBe(201);
    expect((await inA.post('/v1/support', { subject: 'member', message: 'from A' })).status).toBe(201);
    expect((await inB.post('/v1/api-keys', { name: 'no' })).status).toBe(403);
    expect((await inB.post('/v1/workspaces/members', { email: 'x@example.com', role: 'viewer' })).status).toBe(403);
    // admin: manages keys and members in B, never above its own role.
    expect((await a.api.patch(`/v1/workspaces/members/${wendy}`, { role: 'admin' })).status).toBe(200);
    const key = await inB.post('/v1/api-keys', { name: 'by-wendy', role: 'developer' });
    expect(key.status).toBe(201);
    expect((await b.api.get('/v1/api-keys')).body.data.map((k: { id: string }) => k.id)).toContain(key.body.data.id);
    expect((await inB.post('/v1/workspaces/members', { email: 'zed@example.com', role: 'owner' })).status).toBe(403);

    // Another workspace: unknown there (401 like any non-member), and its key finds no such member (404).
    expect((await inC.get('/v1/instances')).status).toBe(401);
    expect((await c.api.patch(`/v1/workspaces/members/${wendy}`, { role: 'viewer' })).status).toBe(404);
    expect((await c.api.delete(`/v1/workspaces/members/${wendy}`)).status).toBe(404);

    // Project members stay per project: A's is unknown in B.
    expect((await a.api.post('/v1/iam/members', { email: 'pat@example.com', role: 'admin' })).status).toBe(201);
    expect((await (await signedIn(a, 'pat@example.com')).get('/v1/iam/members')).status).toBe(200);
    expect((await (await signedIn(b, 'pat@example.com')).get('/v1/iam/members')).status).toBe(401);

    // One email per workspace: 409 in A's workspace from either project, yet C's workspace may hold it.
    const dup = await b.api.post('/v1/workspaces/members', { email: 'WENDY@example.COM' });
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].code).toBe('CONFLICT');
    expect((await c.api.post('/v1/workspaces/members', { email: 'wendy@example.com', role: 'viewer' })).status).toBe(201);
    expect((await inC.get('/v1/instances')).status).toBe(200);
    expect((await inC.post('/v1/support', { subject: 'viewer in C', message: 'no' })).status).toBe(403);

    // Removed from B's key: out of the workspace, so out of A too; C's workspace keeps its own.
    expect((await b.api.delete(`/v1/workspaces/members/${wendy}`)).status).toBe(204);
    expect((await inB.get('/v1/instances')).status).toBe(401);
    expect((await inA.get('/v1/instances')).status).toBe(401);
    expect(ids(await a.api.get('/v1/workspaces/members'))).not.toContain(wendy);
    expect(ids(await b.api.get('/v1/workspaces/members'))).not.toContain(wendy);
    expect((await a.api.patch(`/v1/workspaces/members/${wendy}`, { role: 'viewer' })).status).toBe(404);
    expect((await inC.get('/v1/instances')).status).toBe(200);
  });

  it('keeps the owner, duplicate and role rules per workspace', async () => {
    const olive = await b.api.post('/v1/workspaces/members', { email: 'olive@example.com', role: 'owner' });
    expect(olive.status).toBe(201);
    const oliveId = olive.body.data.id as string;
    // The only owner of the workspace, whatever owners the projects' own registries have.
    expect((await a.api.post('/v1/iam/members', { email: 'ann-owner@example.com', role: 'owner' })).status).toBe(201);
    for (const res of [await a.api.delete(`/v1/workspaces/members/${oliveId}`), await b.api.patch(`/v1/workspaces/members/${oliveId}`, { role: 'admin' })]) {
      expect(res.status).toBe(409);
      expect(res.body.errors[0].code).toBe('INVALID_STATE');
    }
    // An admin key of B neither adds nor removes a workspace owner (403).
    const adminKey = srv.as((await b.api.post('/v1/api-keys', { name: 'b-admin', role: 'admin' })).body.data.attributes.key);
    expect((await adminKey.post('/v1/workspaces/members', { email: 'zoe@example.com', role: 'owner' })).status).toBe(403);
    expect((await adminKey.delete(`/v1/workspaces/members/${oliveId}`)).status).toBe(403);
    // Workspace members take the workspace roles only: no developer, no custom role of one project.
    const role = await a.api.post('/v1/iam/roles', { name: 'Readers', permissions: ['*:read'] });
    expect(role.status).toBe(201);
    expect((await a.api.post('/v1/workspaces/members', { email: 'ray@example.com', role: role.body.data.id })).status).toBe(400);
    expect((await a.api.post('/v1/workspaces/members', { email: 'ray@example.com', role: 'developer' })).status).toBe(400);

    // A second workspace owner: now the first may go.
    expect((await a.api.post('/v1/workspaces/members', { email: 'otto@example.com', role: 'owner' })).status).toBe(201);
    expect((await a.api.delete(`/v1/workspaces/members/${oliveId}`)).status).toBe(204);
    expect((await b.api.get('/v1/workspaces/members')).body.data.map((m: { attributes: { email: string } }) => m.attributes.email)).toEqual(['otto@example.com']);
  });
});
