import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPermissions, InjectPorts, type PermissionsPort } from '../inject-ports';
import { customRoleOf, customRolesDecider, customRolesStream, MAX_CUSTOM_ROLES } from '../../libs/domain/identity/custom-roles';
import { BUILT_IN_ROLES, PROJECT_ROLES, mayGrant, rolePermissions, type Grantee } from '../../libs/domain/identity/roles';
import type { ProjectRole } from '../../libs/domain/identity/events';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { forbidden, invalidState, notFound } from '../../libs/application/src/errors';
import type { ListQuery } from '../../libs/application/src/views';
import { customRolesProjection } from '../../projections/custom-roles/custom-roles.projection';
import { releasedHolds, unrecordedHolders } from './role-holds';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** A role as the routes show it: a built-in (immutable, its permissions expanded over the catalogue) or a custom one. */
export interface RoleView {
  id: string;
  name: string;
  description: string | null;
  builtIn: boolean;
  permissions: string[];
  createdAt: string | null;
  updatedAt: string | null;
}

export type RoleFields = { name: string; description: string | null; permissions: string[] };

export class CreateRole extends Command<RoleView> {
  constructor(readonly projectId: string, readonly fields: RoleFields, readonly actor: Grantee | undefined, readonly context: CommandContext) {
    super();
  }
}
export class UpdateRole extends Command<RoleView> {
  constructor(readonly projectId: string, readonly roleId: string, readonly changes: Partial<RoleFields>, readonly actor: Grantee | undefined, readonly context: CommandContext) {
    super();
  }
}
export class DeleteRole extends Command<void> {
  constructor(readonly projectId: string, readonly roleId: string, readonly context: CommandContext) {
    super();
  }
}
export class ListRoles extends Query<{ items: RoleView[]; total: number }> {
  constructor(readonly projectId: string, readonly list: ListQuery<{ builtIn?: 'true' | 'false' }>) {
    super();
  }
}
export class GetRole extends Query<RoleView> {
  constructor(readonly projectId: string, readonly roleId: string) {
    super();
  }
}

const names = (permissions: PermissionsPort) => permissions().map((p) => p.permission);
const isBuiltIn = (id: string): id is ProjectRole => (PROJECT_ROLES as readonly string[]).includes(id);
const builtInView = (permissions: PermissionsPort, role: ProjectRole): RoleView => ({ id: role, name: role, description: BUILT_IN_ROLES[role].description, builtIn: true, permissions: rolePermissions(role, names(permissions)), createdAt: null, updatedAt: null });

/** DECISIONS 15: a custom role grants only what its author holds (403). */
function mustHold(catalogue: PermissionsPort, actor: Grantee | undefined, permissions: string[] | undefined): void {
  if (!actor || !permissions) return;
  if (!mayGrant(actor, { role: 'viewer', permissions }, names(catalogue))) throw forbidden('A custom role may grant only permissions the creating credential holds');
}

function refuseBuiltIn(roleId: string, verb: string): void {
  if (isBuiltIn(roleId)) throw invalidState(`The built-in role ${roleId} cannot be ${verb}`);
}

async function customRoles(ports: PortsOf<'projections'>, projectId: string): Promise<RoleView[]> {
  const { items } = await (await ports.projections.collection(customRolesProjection)).find({ filter: { projectId }, sort: [{ field: 'createdAt', direction: -1 }], limit: MAX_CUSTOM_ROLES, withTotal: false });
  return items.map((d) => ({ id: d.id, name: d.name, description: d.description, builtIn: false, permissions: d.permissions, createdAt: d.createdAt, updatedAt: d.updatedAt }));
}

async function roleView(ports: PortsOf<'projections' | 'readBack'>, permissions: PermissionsPort, projectId: string, roleId: string, position: number | null = null): Promise<RoleView> {
  if (isBuiltIn(roleId)) return builtInView(permissions, roleId);
  const d =
    position === null
      ? await (await ports.projections.collection(customRolesProjection)).get(roleId)
      : await ports.readBack(customRolesProjection, customRolesStream(projectId), roleId, position);
  if (!d || d.projectId !== projectId) throw notFound('Role not found');
  return { id: d.id, name: d.name, description: d.description, builtIn: false, permissions: d.permissions, createdAt: d.createdAt, updatedAt: d.updatedAt };
}

async function decideRole(ports: PortsOf<'events' | 'waitForProjections'>, projectId: string, command: Parameters<typeof customRolesDecider.decide>[0], context: CommandContext): Promise<number | null> {
  const { position } = await handleCommand(ports.events, customRolesStream(projectId), customRolesDecider, command, context);
  await ports.waitForProjections(position, [customRolesProjection.name]);
  return position;
}

@CommandHandler(CreateRole)
export class CreateRoleHandler implements ICommandHandler<CreateRole> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>, @InjectPermissions() private readonly permissions: PermissionsPort) {}

  async execute({ projectId, fields, actor, context }: CreateRole): Promise<RoleView> {
    mustHold(this.permissions, actor, fields.permissions);
    const roleId = requestScopedId(context, 'role');
    const position = await decideRole(this.ports, projectId, { type: 'CreateRole', roleId, projectId, ...fields, now: this.ports.now() }, context);
    return roleView(this.ports, this.permissions, projectId, roleId, position);
  }
}

@CommandHandler(UpdateRole)
export class UpdateRoleHandler implements ICommandHandler<UpdateRole> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>, @InjectPermissions() private readonly permissions: PermissionsPort) {}

  async execute({ projectId, roleId, changes, actor, context }: UpdateRole): Promise<RoleView> {
    refuseBuiltIn(roleId, 'changed');
    mustHold(this.permissions, actor, changes.permissions);
    const position = await decideRole(this.ports, projectId, { type: 'UpdateRole', roleId, projectId, ...changes, now: this.ports.now() }, context);
    return roleView(this.ports, this.permissions, projectId, roleId, position);
  }
}

@CommandHandler(DeleteRole)
export class DeleteRoleHandler implements ICommandHandler<DeleteRole> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, roleId, context }: DeleteRole): Promise<void> {
    refuseBuiltIn(roleId, 'deleted');
    // In use: a grant in the role's fold whose holder (a member, invited or active, or an unrevoked
    // API key) acts with it, as the holder's own stream says; the others are closed there first. The
    // delete is appended at the revision of the fold it was decided on: a grant recorded after this
    // read is not in `released`, so the retried decision finds the role in use.
    const stream = customRolesStream(projectId);
    const role = customRoleOf((await aggregateStream(this.ports.events, stream, customRolesDecider)).state, roleId);
    const unrecorded = role ? await unrecordedHolders(this.ports, projectId, role) : 0;
    const released = role && unrecorded === 0 ? await releasedHolds(this.ports, projectId, role, context) : [];
    await decideRole(this.ports, projectId, { type: 'DeleteRole', roleId, projectId, released, unrecordedHolders: unrecorded, now: this.ports.now() }, context);
  }
}

@QueryHandler(ListRoles)
export class ListRolesHandler implements IQueryHandler<ListRoles> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>, @InjectPermissions() private readonly permissions: PermissionsPort) {}

  /** Built-ins and the project's custom roles (at most 100) merged, sorted and paged here. */
  async execute({ projectId, list }: ListRoles) {
    const builtIn = list.filters.builtIn;
    const all = [...(builtIn === 'false' ? [] : PROJECT_ROLES.map((r) => builtInView(this.permissions, r))), ...(builtIn === 'true' ? [] : await customRoles(this.ports, projectId))];
    const key = (r: RoleView, f: string) => String(r[f as 'name' | 'createdAt'] ?? '');
    all.sort((a, b) => {
      for (const { field, direction } of [...list.sort, { field: 'id', direction: 1 as const }]) {
        const [x, y] = [key(a, field), key(b, field)];
        if (x !== y) return x < y ? -direction : direction;
      }
      return 0;
    });
    return { items: all.slice(list.skip, list.skip + list.limit), total: all.length };
  }
}

@QueryHandler(GetRole)
export class GetRoleHandler implements IQueryHandler<GetRole> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections' | 'readBack'>, @InjectPermissions() private readonly permissions: PermissionsPort) {}

  execute({ projectId, roleId }: GetRole): Promise<RoleView> {
    return roleView(this.ports, this.permissions, projectId, roleId);
  }
}

export const ROLE_HANDLERS = [CreateRoleHandler, UpdateRoleHandler, DeleteRoleHandler, ListRolesHandler, GetRoleHandler];
