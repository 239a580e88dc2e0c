/**
 * Permissions (DECISIONS 3 and 15): the built-in project roles as permission lists, and the one rule
 * that matches what a caller holds against the `resource:action` a route declares.
 */
import type { ProjectRole } from './events';

export const PROJECT_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const satisfies readonly ProjectRole[];

/** Workspace and invitation roles (DECISIONS 15): `member` acts as a developer. */
export type WorkspaceRole = 'owner' | 'admin' | 'member' | 'viewer';
export const WORKSPACE_ROLE_AS_PROJECT_ROLE: Record<WorkspaceRole, ProjectRole> = { owner: 'owner', admin: 'admin', member: 'developer', viewer: 'viewer' };

/** What a route declares: `resource:action`, action `read` or `write`. */
export const PERMISSION_PATTERN = /^[a-z][a-z0-9-]*:(read|write)$/;
/** What a role may hold: a permission, or one with `*` as its resource and/or action (`*` alone = `*:*`). */
export const GRANT_PATTERN = /^(\*|(\*|[a-z][a-z0-9-]*):(read|write|\*))$/;

/** Resources a developer may read but not manage (DECISIONS 3: keys, members, roles, billing, providers). */
export const MANAGEMENT_RESOURCES = [
  'api-keys', 'members', 'roles', 'invitations', 'workspaces', 'billing', 'wallets', 'payments', 'invoices', 'providers', 'provider-keys',
] as const;

export interface RoleDefinition {
  description: string;
  /** Grants in the custom-role syntax. */
  grants: readonly string[];
  /** Permissions withheld although a grant covers them. */
  except: readonly string[];
}

export const BUILT_IN_ROLES: Record<ProjectRole, RoleDefinition> = {
  owner: { description: 'Everything in the project', grants: ['*:*'], except: [] },
  admin: { description: 'Everything in the project, but never above an owner (owner keys)', grants: ['*:*'], except: [] },
  developer: { description: 'Reads everything; manages resources, not keys, members, roles, billing or providers', grants: ['*:read', '*:write'], except: MANAGEMENT_RESOURCES.map((r) => `${r}:write`) },
  viewer: { description: 'Reads everything, changes nothing', grants: ['*:read'], except: [] },
};

/** Whether one grant covers a permission (`instances:*`, `*:read`, `*`, or the permission itself). */
export function grantCovers(grant: string, permission: string): boolean {
  if (grant === '*') return true;
  const [gr, ga] = grant.split(':');
  const [pr, pa] = permission.split(':');
  return (gr === '*' || gr === pr) && (ga === '*' || ga === pa);
}

export const grantsAllow = (grants: readonly string[], permission: string): boolean => grants.some((g) => grantCovers(g, permission));

export function roleAllows(role: ProjectRole, permission: string): boolean {
  const def = BUILT_IN_ROLES[role];
  return grantsAllow(def.grants, permission) && !def.except.includes(permission);
}

/** A built-in role as the list of catalogue permissions it holds. */
export const rolePermissions = (role: ProjectRole, catalogue: readonly string[]): string[] => catalogue.filter((p) => roleAllows(role, p));

/**
 * Whoever acts: a key or member with a built-in role, or with a custom role's permission list
 * (which then decides alone).
 */
export interface Grantee {
  role: ProjectRole;
  permissions?: readonly string[];
}

/**
 * Whether the caller holds `permission`. A route that declares none needs every permission (`*:*`):
 * a forgotten declaration fails closed for everyone below admin.
 */
export function isPermitted(who: Grantee, permission: string | undefined): boolean {
  const wanted = permission ?? '*:*';
  return who.permissions ? grantsAllow(who.permissions, wanted) : roleAllows(who.role, wanted);
}

const ROLE_RANK: Record<ProjectRole, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

/**
 * Whether `who` may issue or revoke a key acting with `role`: never above its own (DECISIONS 15).
 * A custom role must hold every permission of `role` in the catalogue, and never makes an owner.
 */
export function mayAssignRole(who: Grantee, role: ProjectRole, catalogue: readonly string[]): boolean {
  if (!who.permissions) return ROLE_RANK[role] <= ROLE_RANK[who.role];
  if (role === 'owner') return false;
  return rolePermissions(role, catalogue).every((p) => grantsAllow(who.permissions!, p));
}

/**
 * Whether `who` may hand out what `target` grants (a member's or key's role, a custom role's list):
 * a built-in role by rank, a permission list only with catalogue permissions `who` holds itself.
 */
export function mayGrant(who: Grantee, target: Grantee, catalogue: readonly string[]): boolean {
  if (!target.permissions) return mayAssignRole(who, target.role, catalogue);
  return catalogue.filter((p) => grantsAllow(target.permissions!, p)).every((p) => isPermitted(who, p));
}

/**
 * What someone holding several grants acts with (a member of both a project's and its workspace's
 * registry): the one that covers the others (the higher built-in role, the first of equals), else
 * the union of their catalogue permissions as one list.
 */
export function eitherGrant(grants: readonly Grantee[], catalogue: readonly string[]): Grantee {
  const covering = grants.find((g) => grants.every((o) => mayGrant(g, o, catalogue)));
  if (covering) return covering;
  const held = new Set(grants.flatMap((g) => (g.permissions ? catalogue.filter((p) => grantsAllow(g.permissions!, p)) : rolePermissions(g.role, catalogue))));
  return { role: 'viewer', permissions: catalogue.filter((p) => held.has(p)) };
}
