import { BUILT_IN_ROLES, GRANT_PATTERN, MANAGEMENT_RESOURCES, PERMISSION_PATTERN, PROJECT_ROLES, eitherGrant, grantCovers, isPermitted, mayAssignRole, mayGrant, roleAllows, rolePermissions } from './roles';

const catalogue = ['api-keys:read', 'api-keys:write', 'instances:read', 'instances:write', 'providers:read', 'providers:write', 'roles:read'];

describe('built-in roles (DECISIONS 3)', () => {
  it('as permission lists over a catalogue', () => {
    expect(rolePermissions('owner', catalogue)).toEqual(catalogue);
    expect(rolePermissions('admin', catalogue)).toEqual(catalogue);
    expect(rolePermissions('developer', catalogue)).toEqual(['api-keys:read', 'instances:read', 'instances:write', 'providers:read', 'roles:read']);
    expect(rolePermissions('viewer', catalogue)).toEqual(['api-keys:read', 'instances:read', 'providers:read', 'roles:read']);
  });

  it('a developer manages no key, member, role, billing or provider resource', () => {
    for (const r of MANAGEMENT_RESOURCES) {
      expect(roleAllows('developer', `${r}:write`)).toBe(false);
      expect(roleAllows('developer', `${r}:read`)).toBe(true);
    }
    expect(roleAllows('developer', 'kubernetes:write')).toBe(true);
  });

  it('holds only well-formed grants', () => {
    for (const role of PROJECT_ROLES) {
      for (const g of BUILT_IN_ROLES[role].grants) expect(g).toMatch(GRANT_PATTERN);
      for (const p of BUILT_IN_ROLES[role].except) expect(p).toMatch(PERMISSION_PATTERN);
    }
  });
});

describe('grants', () => {
  it.each([
    ['instances:read', 'instances:read', true],
    ['instances:*', 'instances:write', true],
    ['*:read', 'servers:read', true],
    ['*:read', 'servers:write', false],
    ['*', 'servers:write', true],
    ['*:*', 'servers:write', true],
    ['instances:read', 'instances:write', false],
    ['instances:read', 'instance:read', false],
  ])('%s covers %s: %s', (grant, permission, covered) => {
    expect(grantCovers(grant, permission)).toBe(covered);
  });

  it('a custom role decides alone, whatever the role field says', () => {
    expect(isPermitted({ role: 'viewer', permissions: ['instances:*'] }, 'instances:write')).toBe(true);
    expect(isPermitted({ role: 'owner', permissions: ['instances:*'] }, 'servers:read')).toBe(false);
  });

  it('a route that declares no permission is for those who hold everything', () => {
    expect(isPermitted({ role: 'admin' }, undefined)).toBe(true);
    expect(isPermitted({ role: 'developer' }, undefined)).toBe(false);
    expect(isPermitted({ role: 'viewer', permissions: ['*:read', '*:write'] }, undefined)).toBe(false);
    expect(isPermitted({ role: 'viewer', permissions: ['*'] }, undefined)).toBe(true);
  });
});

describe('assigning a role to a key (DECISIONS 15)', () => {
  it('never above the assigner', () => {
    expect(mayAssignRole({ role: 'owner' }, 'owner', catalogue)).toBe(true);
    expect(mayAssignRole({ role: 'admin' }, 'owner', catalogue)).toBe(false);
    expect(mayAssignRole({ role: 'admin' }, 'admin', catalogue)).toBe(true);
    expect(mayAssignRole({ role: 'admin' }, 'viewer', catalogue)).toBe(true);
    expect(mayAssignRole({ role: 'developer' }, 'admin', catalogue)).toBe(false);
  });

  it('a custom role only what it holds, and never an owner', () => {
    const keyManager = { role: 'viewer' as const, permissions: ['*:read', 'api-keys:write'] };
    expect(mayAssignRole(keyManager, 'viewer', catalogue)).toBe(true);
    expect(mayAssignRole(keyManager, 'developer', catalogue)).toBe(false);
    expect(mayAssignRole({ role: 'viewer', permissions: ['*'] }, 'admin', catalogue)).toBe(true);
    expect(mayAssignRole({ role: 'viewer', permissions: ['*'] }, 'owner', catalogue)).toBe(false);
  });
});

describe('granting a permission list (custom roles, DECISIONS 15)', () => {
  it('only what the granter holds over the catalogue', () => {
    expect(mayGrant({ role: 'admin' }, { role: 'viewer', permissions: ['*'] }, catalogue)).toBe(true);
    expect(mayGrant({ role: 'developer' }, { role: 'viewer', permissions: ['instances:*'] }, catalogue)).toBe(true);
    expect(mayGrant({ role: 'developer' }, { role: 'viewer', permissions: ['api-keys:write'] }, catalogue)).toBe(false);
    expect(mayGrant({ role: 'viewer', permissions: ['*:read'] }, { role: 'viewer', permissions: ['*:read'] }, catalogue)).toBe(true);
    expect(mayGrant({ role: 'viewer', permissions: ['*:read'] }, { role: 'viewer', permissions: ['instances:write'] }, catalogue)).toBe(false);
    expect(mayGrant({ role: 'admin' }, { role: 'owner' }, catalogue)).toBe(false);
  });
});

describe('a member of both a project and its workspace (eitherGrant)', () => {
  it('acts with the grant covering the other, else with the union of both as one list', () => {
    expect(eitherGrant([{ role: 'viewer' }, { role: 'admin' }], catalogue)).toEqual({ role: 'admin' });
    expect(eitherGrant([{ role: 'developer' }, { role: 'viewer' }], catalogue)).toEqual({ role: 'developer' });
    expect(eitherGrant([{ role: 'viewer' }, { role: 'viewer', permissions: ['*:read'] }], catalogue)).toEqual({ role: 'viewer' });
    const union = eitherGrant([{ role: 'viewer' }, { role: 'viewer', permissions: ['providers:write'] }], catalogue);
    expect(union).toEqual({ role: 'viewer', permissions: ['api-keys:read', 'instances:read', 'providers:read', 'providers:write', 'roles:read'] });
    expect(isPermitted(union, 'instances:write')).toBe(false);
  });
});
