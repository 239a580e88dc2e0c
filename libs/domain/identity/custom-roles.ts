/**
 * Custom roles (DECISIONS 15): a project's named permission lists, one stream per project so a name
 * is unique on one state. Built-in roles are not recorded here: they are constants (roles.ts) and
 * cannot be changed or deleted.
 *
 * Holds: a role in use cannot be deleted, so every grant of a custom role (to an API key or a member)
 * is first reserved here (the reservation mechanism of shared/reservation.ts: the grant is the holder,
 * its key or member the value; grants never conflict, a delete waits for every one to be released), as a RoleGranted naming the grant and its holder, appended at the stream's
 * revision: a grant and a delete are ordered by this stream, and the delete sees every grant in the
 * fold. The holder's own event (ApiKeyIssued, MemberAdded, MemberInvited, MemberRoleChanged) then
 * names the grant (`roleGrant`). A hold whose holder no longer holds the role (revoked, removed, role
 * changed) is released (RoleReleased, naming the grant); one whose grant never happened (a crash or
 * a refusal between the two appends) is voided on the holder's stream by the delete, which then
 * releases it (see DeleteRole).
 */
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';
import { applyReservation, decideReservation, heldReservations, type Reservations } from '../shared/reservation';
import { GRANT_PATTERN, PROJECT_ROLES } from './roles';

export const customRolesStream = (projectId: string) => `role-${projectId}`;
export const MAX_CUSTOM_ROLES = 100;

type Base = { roleId: string; projectId: string };
/**
 * `holdsRecorded`: every grant of this role is recorded on this stream (roles created since holds
 * exist). A role created before (no such field) may have holders granted without a RoleGranted;
 * those are found outside the fold (DeleteRole `unrecordedHolders`).
 */
export type RoleCreated = DomainEvent<'identity.RoleCreated.v1', Base & { name: string; description: string | null; permissions: string[]; createdAt: string; holdsRecorded?: true }>;
export type RoleUpdated = DomainEvent<'identity.RoleUpdated.v1', Base & { name: string; description: string | null; permissions: string[]; updatedAt: string }>;
export type RoleDeleted = DomainEvent<'identity.RoleDeleted.v1', Base & { deletedAt: string }>;
export type CustomRoleEvent = RoleCreated | RoleUpdated | RoleDeleted;
export const CustomRoleEventTypes = { RoleCreated: 'identity.RoleCreated.v1', RoleUpdated: 'identity.RoleUpdated.v1', RoleDeleted: 'identity.RoleDeleted.v1' } as const;

/** Who holds a role through a grant: an API key or a member (of the project's registry, or its workspace's). */
export type RoleHolder = { kind: 'api-key' | 'member'; id: string };
/** A grant of the role to `holder`, decided before the holder's own event (which names `grantId`). */
export type RoleGranted = DomainEvent<'identity.RoleGranted.v1', Base & { grantId: string; holder: RoleHolder; grantedAt: string }>;
/** The grant `grantId` holds the role no more (the key revoked, the member removed or given another role, or the grant voided). */
export type RoleReleased = DomainEvent<'identity.RoleReleased.v1', Base & { grantId: string; holder: RoleHolder; releasedAt: string }>;
export type RoleHoldEvent = RoleGranted | RoleReleased;
/** Bookkeeping of the role stream, kept apart from the role's definition events (the roles read model needs none of them). */
export const RoleHoldEventTypes = { RoleGranted: 'identity.RoleGranted.v1', RoleReleased: 'identity.RoleReleased.v1' } as const;

export interface CustomRole {
  id: string;
  name: string;
  description: string | null;
  permissions: string[];
  /** Grants not released, by grant id: who holds the role by each, since when. */
  holds: Reservations<RoleHolder>;
  /** Created before holds were recorded: holders from then are not in `holds`. */
  unrecordedHolds: boolean;
}
export type CustomRolesState = { roles: Record<string, CustomRole> };

type At = { now: string };
export type CreateRole = At & Base & { type: 'CreateRole'; name: string; description: string | null; permissions: string[] };
export type UpdateRole = At & Base & { type: 'UpdateRole'; name?: string; description?: string | null; permissions?: string[] };
/**
 * `released`: the grants of the fold the caller proved hold the role no more, on each holder's own
 * stream (where a grant that never happened was first voided, so it never can). Any other grant in
 * the fold is in use (and a grant recorded after the caller looked is not in the list: in use).
 * `unrecordedHolders`: for a role created before holds were recorded, its holders not in the fold
 * (grants made before; looked up by the caller). Ignored for a role whose holds are all recorded.
 */
export type DeleteRole = At & Base & { type: 'DeleteRole'; released: string[]; unrecordedHolders: number };
/** Reserve the role for `holder` before the holder's own grant event, which names `grantId`. */
export type GrantRole = At & Base & { type: 'GrantRole'; grantId: string; holder: RoleHolder };
/** The grant (of whichever role of the project) holds no more. Nothing to do when it is released already or its role is gone. */
export type ReleaseRole = At & { type: 'ReleaseRole'; projectId: string; grantId: string };
export type CustomRoleCommand = CreateRole | UpdateRole | DeleteRole | GrantRole | ReleaseRole;
export type CustomRolesStreamEvent = CustomRoleEvent | RoleHoldEvent;

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

/**
 * The custom role of that id, if the project has one: own members only, since the id may come from a
 * client (`constructor`, `__proto__` or `toString` would find Object.prototype's members).
 */
export const customRoleOf = (state: CustomRolesState, roleId: string): CustomRole | undefined => (Object.hasOwn(state.roles, roleId) ? state.roles[roleId] : undefined);

export const customRolesDecider: Decider<CustomRoleCommand, CustomRolesStreamEvent, CustomRolesState> = {
  // Version 2: holds take the shared reservation shape ({ value: holder, reservedAt }).
  snapshot: { name: 'custom-roles', version: 2, every: 100 },
  initialState: () => ({ roles: {} }),
  // A role's holds are changed in place: a fold owns its state, and copying them per grant made a
  // fold quadratic in the holders at once (the roles map is copied: at most MAX_CUSTOM_ROLES entries).
  evolve: (state, event) => {
    const roles = { ...state.roles };
    const d = event.data;
    const role = customRoleOf(state, d.roleId);
    switch (event.type) {
      case 'identity.RoleCreated.v1':
        // One-off rule for roles from before holds: their earlier grants are not in this stream.
        roles[d.roleId] = { id: d.roleId, name: event.data.name, description: event.data.description, permissions: event.data.permissions, holds: {}, unrecordedHolds: event.data.holdsRecorded !== true };
        return { roles };
      case 'identity.RoleUpdated.v1':
        if (role) roles[d.roleId] = { ...role, name: event.data.name, description: event.data.description, permissions: event.data.permissions };
        return { roles };
      case 'identity.RoleDeleted.v1':
        delete roles[d.roleId];
        return { roles };
      case 'identity.RoleGranted.v1':
        if (role) applyReservation(role.holds, event.data.grantId, { value: event.data.holder, reservedAt: event.data.grantedAt });
        return { roles };
      case 'identity.RoleReleased.v1': {
        if (role) applyReservation(role.holds, event.data.grantId, null);
        return { roles };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'ReleaseRole') {
      const role = Object.values(state.roles).find((r) => Object.hasOwn(r.holds, command.grantId));
      if (!role) return [];
      return [{ type: 'identity.RoleReleased.v1', data: { roleId: role.id, projectId: command.projectId, grantId: command.grantId, holder: role.holds[command.grantId].value, releasedAt: command.now } }];
    }
    const { roleId, projectId, now } = command;
    const role = customRoleOf(state, roleId);
    switch (command.type) {
      case 'CreateRole': {
        if (role) throw new DomainError('CONFLICT', `Role ${roleId} already exists`);
        if (Object.keys(state.roles).length >= MAX_CUSTOM_ROLES) throw new DomainError('CONFLICT', `A project holds at most ${MAX_CUSTOM_ROLES} custom roles`);
        refuseName(state, command.name);
        refuseGrants(command.permissions);
        const permissions = [...new Set(command.permissions)].sort();
        return [{ type: 'identity.RoleCreated.v1', data: { roleId, projectId, name: command.name.trim(), description: command.description, permissions, createdAt: now, holdsRecorded: true } }];
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
      case 'DeleteRole': {
        if (!role) throw new DomainError('NOT_FOUND', 'Role not found');
        const held = heldReservations(role.holds, command.released).length + (role.unrecordedHolds ? command.unrecordedHolders : 0);
        if (held > 0) throw new DomainError('CONFLICT', `Role ${role.name} is in use by ${held} member(s) or key(s)`);
        // Every remaining hold is proven released: recorded as such, with the delete, in one append.
        const released = Object.entries(role.holds).map(([grantId, hold]): RoleReleased => ({ type: 'identity.RoleReleased.v1', data: { roleId, projectId, grantId, holder: hold.value, releasedAt: now } }));
        return [...released, { type: 'identity.RoleDeleted.v1', data: { roleId, projectId, deletedAt: now } }];
      }
      case 'GrantRole':
        // Deleted (or never made): the grant is refused, decided on the same revision as a delete.
        if (!role) throw new DomainError('NOT_FOUND', 'Role not found');
        // Grants of a role never conflict; a repeated one is held already.
        if (!decideReservation(role.holds, { holderId: command.grantId, value: command.holder, releasable: [], now }, () => false, () => '')) return [];
        return [{ type: 'identity.RoleGranted.v1', data: { roleId, projectId, grantId: command.grantId, holder: command.holder, grantedAt: now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
