/**
 * Custom roles (DECISIONS 15): a project's named permission lists, one stream per project so a name
 * is unique on one state. Built-in roles are not recorded here: they are constants (roles.ts) and
 * cannot be changed or deleted.
 */
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';
import { GRANT_PATTERN, PROJECT_ROLES } from './roles';

export const customRolesStream = (projectId: string) => `role-${projectId}`;
export const MAX_CUSTOM_ROLES = 100;

type Base = { roleId: string; projectId: string };
export type RoleCreated = DomainEvent<'identity.RoleCreated.v1', Base & { name: string; description: string | null; permissions: string[]; createdAt: string }>;
export type RoleUpdated = DomainEvent<'identity.RoleUpdated.v1', Base & { name: string; description: string | null; permissions: string[]; updatedAt: string }>;
export type RoleDeleted = DomainEvent<'identity.RoleDeleted.v1', Base & { deletedAt: string }>;
export type CustomRoleEvent = RoleCreated | RoleUpdated | RoleDeleted;
export const CustomRoleEventTypes = { RoleCreated: 'identity.RoleCreated.v1', RoleUpdated: 'identity.RoleUpdated.v1', RoleDeleted: 'identity.RoleDeleted.v1' } as const;

export interface CustomRole {
  id: string;
  name: string;
  description: string | null;
  permissions: string[];
}
export type CustomRolesState = { roles: Record<string, CustomRole> };

type At = { now: string };
export type CreateRole = At & Base & { type: 'CreateRole'; name: string; description: string | null; permissions: string[] };
export type UpdateRole = At & Base & { type: 'UpdateRole'; name?: string; description?: string | null; permissions?: string[] };
/** `inUse`: members or API keys that act with this role (looked up by the caller). */
export type DeleteRole = At & Base & { type: 'DeleteRole'; inUse: number };
export type CustomRoleCommand = CreateRole | UpdateRole | DeleteRole;

const nameKey = (name: string) => name.trim().toLowerCase();
/** Built-in role names are taken (so a role reference is never ambiguous). */
const isBuiltInName = (name: string) => (PROJECT_ROLES as readonly string[]).includes(nameKey(name)) || nameKey(name) === 'member';

function refuseName(state: CustomRolesState, name: string, self?: string): void {
  if (isBuiltInName(name)) throw new DomainError('CONFLICT', `${name} is a built-in role name`);
  const taken = Object.values(state.roles).find((r) => r.id !== self && nameKey(r.name) === nameKey(name));
  if (taken) throw new DomainError('CONFLICT', `A role named ${name} already exists`);
}

function refuseGrants(permissions: string[]): void {
  const bad = permissions.find((p) => !GRANT_PATTERN.test(p));
  if (bad !== undefined) throw new DomainError('BAD_REQUEST', `${bad} is not a resource:action permission`);
}

export const customRolesDecider: Decider<CustomRoleCommand, CustomRoleEvent, CustomRolesState> = {
  initialState: () => ({ roles: {} }),
  evolve: (state, event) => {
    const roles = { ...state.roles };
    const d = event.data;
    switch (event.type) {
      case 'identity.RoleCreated.v1':
      case 'identity.RoleUpdated.v1':
        roles[d.roleId] = { id: d.roleId, name: event.data.name, description: event.data.description, permissions: event.data.permissions };
        return { roles };
      case 'identity.RoleDeleted.v1':
        delete roles[d.roleId];
        return { roles };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    const { roleId, projectId, now } = command;
    const role = state.roles[roleId];
    switch (command.type) {
      case 'CreateRole': {
        if (role) throw new DomainError('CONFLICT', `Role ${roleId} already exists`);
        if (Object.keys(state.roles).length >= MAX_CUSTOM_ROLES) throw new DomainError('CONFLICT', `A project holds at most ${MAX_CUSTOM_ROLES} custom roles`);
        refuseName(state, command.name);
        refuseGrants(command.permissions);
        const permissions = [...new Set(command.permissions)].sort();
        return [{ type: 'identity.RoleCreated.v1', data: { roleId, projectId, name: command.name.trim(), description: command.description, permissions, createdAt: now } }];
      }
      case 'UpdateRole': {
        if (!role) throw new DomainError('NOT_FOUND', 'Role not found');
        const name = command.name?.trim() ?? role.name;
        if (command.name !== undefined) refuseName(state, name, roleId);
        if (command.permissions) refuseGrants(command.permissions);
        const permissions = command.permissions ? [...new Set(command.permissions)].sort() : role.permissions;
        const description = command.description === undefined ? role.description : command.description;
        if (name === role.name && description === role.description && permissions.join() === role.permissions.join()) return [];
        return [{ type: 'identity.RoleUpdated.v1', data: { roleId, projectId, name, description, permissions, updatedAt: now } }];
      }
      case 'DeleteRole':
        if (!role) throw new DomainError('NOT_FOUND', 'Role not found');
        if (command.inUse > 0) throw new DomainError('CONFLICT', `Role ${role.name} is in use by ${command.inUse} member(s) or key(s)`);
        return [{ type: 'identity.RoleDeleted.v1', data: { roleId, projectId, deletedAt: now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
