import {
  ApiError, MemoryRateLimitStore, RateLimiter, authorize, isAllowed, isProjectPrincipal, principalActor, principalProjectId, principalScope, readCredential,
  type Principal, type ProjectMemberPrincipal,
} from '../src';

/** Project members (verified JWTs, DECISIONS 3) are handled like project keys with their role. */
const member = (role: ProjectMemberPrincipal['role']): ProjectMemberPrincipal => ({ kind: 'project-member', projectId: 'p1', memberId: 'alice', role, mode: 'live' });
const key: Principal = { kind: 'project-key', projectId: 'p1', keyId: 'k1', role: 'owner', mode: 'live' };
const admin: Principal = { kind: 'platform-admin', keyId: 'k-admin' };

const statusOf = (fn: () => void): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as ApiError).status;
  }
};

describe('principals', () => {
  it('treats keys and members as project principals, platform admins not', () => {
    expect(isProjectPrincipal(key)).toBe(true);
    expect(isProjectPrincipal(member('viewer'))).toBe(true);
    expect(isProjectPrincipal(admin)).toBe(false);
    expect(isProjectPrincipal(null)).toBe(false);
    expect(principalProjectId(member('owner'))).toBe('p1');
    expect(principalProjectId(admin)).toBeUndefined();
    expect(principalScope(member('owner'))).toBe(principalScope(key));
  });

  it('names the actor for event metadata', () => {
    expect(principalActor(key)).toBe('apikey:k1');
    expect(principalActor(member('admin'))).toBe('member:alice');
    expect(principalActor(admin)).toBe('admin:k-admin');
    expect(principalActor(null)).toBe('anonymous');
  });

  it('authorizes members by role and keeps admin routes closed to them', () => {
    const project = { auth: 'project' as const, permission: 'api-keys:write' };
    expect(statusOf(() => authorize(project, 'POST', member('admin'), true))).toBe('ok');
    expect(statusOf(() => authorize(project, 'POST', member('developer'), true))).toBe(403);
    expect(statusOf(() => authorize(project, 'POST', member('viewer'), true))).toBe(403);
    expect(statusOf(() => authorize({ auth: 'project', permission: 'instances:read' }, 'GET', member('viewer'), true))).toBe('ok');
    expect(statusOf(() => authorize({ auth: 'admin' }, 'GET', member('owner'), true))).toBe(403);
    expect(statusOf(() => authorize({ auth: 'project' }, 'GET', admin, true))).toBe(403);
    expect(statusOf(() => authorize({ auth: 'project' }, 'GET', null, true))).toBe(401);
    expect(isAllowed(member('developer'), 'instances:write')).toBe(true);
  });

  it('checks the declared permission, not the method, against the role or the custom role list', () => {
    const route = (permission?: string) => ({ auth: 'project' as const, permission });
    // A route that forgot its permission fails closed below admin, even for a GET.
    expect(statusOf(() => authorize(route(), 'GET', member('viewer'), true))).toBe(403);
    expect(statusOf(() => authorize(route(), 'GET', member('developer'), true))).toBe(403);
    expect(statusOf(() => authorize(route(), 'GET', member('admin'), true))).toBe('ok');
    expect(statusOf(() => authorize(route('providers:write'), 'PATCH', member('developer'), true))).toBe(403);
    expect(statusOf(() => authorize(route('servers:write'), 'PATCH', member('developer'), true))).toBe('ok');
    const custom: Principal = { kind: 'project-key', projectId: 'p1', keyId: 'k2', role: 'viewer', mode: 'live', permissions: ['instances:*', '*:read'] };
    expect(statusOf(() => authorize(route('instances:write'), 'POST', custom, true))).toBe('ok');
    expect(statusOf(() => authorize(route('servers:read'), 'GET', custom, true))).toBe('ok');
    expect(statusOf(() => authorize(route('servers:write'), 'POST', custom, true))).toBe(403);
    expect(() => authorize(route('servers:write'), 'POST', member('viewer'), true)).toThrow(/lacks the permission servers:write/);
  });

  it('reads a bearer JWT like any bearer token', () => {
    expect(readCredential({ authorization: 'Bearer aaa.bbb.ccc' })).toEqual({ apiKey: undefined, bearer: 'aaa.bbb.ccc' });
  });
});

describe('rate limits for members', () => {
  it('count per project and per member, with the per-key limit', async () => {
    const limiter = new RateLimiter(new MemoryRateLimitStore(), { perProject: 10, perKey: 2, perIp: 5 });
    const t = Date.UTC(2026, 0, 1, 0, 0, 10);
    const alice = member('viewer');
    const bob: ProjectMemberPrincipal = { ...alice, memberId: 'bob' };
    expect((await limiter.consume(alice, '1.1.1.1', t)).exceeded).toBe(false);
    const second = await limiter.consume(alice, '1.1.1.1', t);
    expect(second).toMatchObject({ exceeded: false, state: { limit: 2, remaining: 0 } });
    expect((await limiter.consume(alice, '1.1.1.1', t)).exceeded).toBe(true);
    // Another member of the same project has its own bucket but shares the project's.
    expect((await limiter.consume(bob, '1.1.1.1', t)).exceeded).toBe(false);
    expect((await limiter.consume(key, '1.1.1.1', t)).state.remaining).toBe(1);
    // The project has spent 4 (alice's refused request counts nowhere): 6 more members fill it.
    for (let i = 0; i < 6; i++) expect((await limiter.consume({ ...alice, memberId: `m${i}` }, '1.1.1.1', t)).exceeded).toBe(false);
    expect((await limiter.consume({ ...alice, memberId: 'fresh' }, '1.1.1.1', t)).exceeded).toBe(true);
  });
});
