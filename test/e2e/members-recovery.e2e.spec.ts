/**
 * DECISIONS 5 for spec 4.11's creates: a keyed create whose write committed but whose answer a crash
 * lost answers its retry with the route's real answer (a provider key's without its secret), once.
 * As in idempotency-recovery.e2e.spec.ts, each key's record is put back to the state such a kill
 * leaves (`committed`, no response) while the server is down (and, on the server profile, the answer
 * Redis cached is removed: a key that was never answered has none).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { client, type TestResponse } from '../support/http-client';
import { crashableServer } from '../support/spawn-server';

describe.each(['embedded', 'server'] as const)('member, invitation, role and provider-key answers rebuilt after a crash (%s profile)', (profile) => {
  const server = crashableServer(profile, 'members');
  afterAll(() => server.cleanup());

  it('answers each keyed create its real 201 after the crash, and carries none out twice', async () => {
    await server.start();
    const apiKey = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': apiKey });
    const { projectId, adminKey } = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'bootstrap.json'), 'utf8')) as { projectId: string; adminKey: string };
    // A second project of the bootstrap project's workspace: its workspace member is written to the workspace's registry.
    const joined = await client(server.url, { 'X-Service-API-Key': adminKey }).post('/v1/admin/projects', { name: 'joined', workspaceId: projectId });
    expect(joined.status).toBe(201);
    const joinedKey = joined.body.included[0].attributes.key as string;
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-recover' })).body.data.id as string;
    const creates: Array<{ name: string; path: string; body: unknown; key: string; as?: string; first?: TestResponse }> = [
      { name: 'member', path: '/v1/iam/members', body: { email: 'recover@example.com', role: 'viewer' }, key: randomUUID() },
      { name: 'workspace member', path: '/v1/workspaces/members', body: { email: 'ws-recover@example.com' }, key: randomUUID() },
      { name: 'workspace member from a joined project', path: '/v1/workspaces/members', body: { email: 'ws-joined@example.com' }, key: randomUUID(), as: joinedKey },
      { name: 'invitation', path: `/v1/projects/${projectId}/invites`, body: { email: 'invite-recover@example.com' }, key: randomUUID() },
      { name: 'role', path: '/v1/iam/roles', body: { name: 'Recover', permissions: ['*:read'] }, key: randomUUID() },
      { name: 'provider key', path: '/v1/iam/api-keys', body: { name: 'recover', providerId }, key: randomUUID() },
    ];
    for (const c of creates) {
      c.first = await client(server.url, { 'X-Service-API-Key': c.as ?? apiKey }).post(c.path, c.body, { 'Idempotency-Key': c.key });
      expect({ name: c.name, status: c.first.status }).toEqual({ name: c.name, status: 201 });
    }

    await server.kill();
    const keys = creates.map((c) => c.key);
    const lost = await server.loseAnswers(keys);
    expect(lost.keys).toEqual([...keys].sort());
    if (profile === 'server') expect(lost.uncached).toBe(keys.length);

    await server.start();
    const api2 = client(server.url, { 'X-Service-API-Key': apiKey });
    for (const c of creates) {
      const retry = await client(server.url, { 'X-Service-API-Key': c.as ?? apiKey }).post(c.path, c.body, { 'Idempotency-Key': c.key });
      expect({ name: c.name, status: retry.status, replayed: retry.headers['idempotent-replayed'] }).toEqual({ name: c.name, status: 201, replayed: 'true' });
      if (c.name === 'provider key') {
        const { secret, ...attributes } = c.first!.body.data.attributes;
        expect(retry.body.data).toEqual({ ...c.first!.body.data, attributes });
        expect(retry.body.meta.secret).toMatch(/Not shown/);
        expect(retry.text).not.toContain(secret);
      } else {
        expect({ name: c.name, body: retry.body }).toEqual({ name: c.name, body: c.first!.body });
      }
    }
    expect((await api2.get('/v1/iam/members')).body.meta.total).toBe(2);
    expect((await api2.get(`/v1/projects/${projectId}/invites`)).body.meta.total).toBe(1);
    expect((await api2.get('/v1/workspaces/members')).body.meta.total).toBe(2);
    expect((await api2.get('/v1/iam/roles?builtIn=false')).body.meta.total).toBe(1);
    expect((await api2.get('/v1/iam/api-keys')).body.meta.total).toBe(1);
  }, 240000);
});
