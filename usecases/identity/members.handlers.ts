import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectIdentity, InjectPermissions, InjectPorts, type IdentityPort, type PermissionsPort } from '../inject-ports';
import { invitationToken, invitationTokenHash, parseInvitationToken } from '../../libs/domain/identity/invitation-token';
import { membershipDecider, membershipStream, ResendTooSoon, type MemberScope, type MembershipCommand } from '../../libs/domain/identity/membership';
import { WORKSPACE_ROLE_AS_PROJECT_ROLE, mayGrant, type Grantee } from '../../libs/domain/identity/roles';
import type { ProjectRole } from '../../libs/domain/identity/events';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { badRequest, forbidden, notFound, resendTooSoon } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { customRolesProjection } from '../../projections/custom-roles/custom-roles.projection';
import { membersProjection, type MemberDoc } from '../../projections/members/members.projection';
import { registryOf } from './workspaces';
import { releaseRole, releaseUnheld, reserveRole } from './role-holds';
import { reserveThenWrite } from '../reservations';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** A write to a project's membership, as the routes ask for it (ids, `now` and token hashes are added here). */
export type MembershipChange =
  | { type: 'AddMember'; scope: MemberScope; email: string; role: string }
  | { type: 'InviteMember'; email: string; role: string }
  | { type: 'ResendInvitation'; memberId: string }
  | { type: 'CancelInvitation'; memberId: string }
  | { type: 'ChangeMemberRole'; memberId: string; scope: MemberScope; role: string }
  | { type: 'RemoveMember'; memberId: string; scope: MemberScope };

/**
 * `projectId`: the calling project (bare, DECISIONS 21: members are no data of a mode). A change of
 * workspace members is made in the registry of that project's workspace.
 */
export class ChangeMembership extends Command<MemberDoc | null> {
  constructor(
    readonly projectId: string,
    readonly change: MembershipChange,
    /** The calling credential: it never hands out, changes or removes a role above its own. */
    readonly actor: Grantee | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class AcceptInvitation extends Command<MemberDoc> {
  constructor(
    readonly token: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * `now`: the platform clock's, for what is computed at read time (an invitation's `expired`).
 * `projectId`: the calling project; scope `workspace` lists its workspace's members.
 */
export class ListMembers extends Query<{ items: MemberDoc[]; total: number; now: number }> {
  constructor(
    readonly projectId: string,
    readonly scope: MemberScope,
    readonly statuses: ('invited' | 'active')[],
    readonly list: ListQuery<unknown>,
  ) {
    super();
  }
}

export class GetMember extends Query<MemberDoc> {
  constructor(
    readonly projectId: string,
    readonly scope: MemberScope,
    readonly memberId: string,
  ) {
    super();
  }
}


/**
 * What a member role grants: a built-in name (project roles, or `member`, which acts as developer),
 * else a custom role of the project (its permission list). Anything else: 400. For a member of a
 * registry, `projectId` is the registry's id (a workspace's is its founding project's, whose custom
 * roles its members held before workspaces grouped projects; new ones take built-in roles only).
 */
export async function roleGrantee(ports: PortsOf<'projections'>, projectId: string, role: string, builtIns: readonly string[]): Promise<Grantee> {
  if (builtIns.includes(role)) return { role: (WORKSPACE_ROLE_AS_PROJECT_ROLE as Record<string, ProjectRole>)[role] ?? (role as ProjectRole) };
  const custom = await (await ports.projections.collection(customRolesProjection)).get(role);
  if (!custom || custom.projectId !== projectId) throw badRequest([{ detail: `role must be one of ${builtIns.join(', ')} or the id of a custom role of this project`, source: { pointer: '/role' } }]);
  return { role: 'viewer', permissions: custom.permissions };
}

const ROLE_NAMES: Record<'project' | 'workspace' | 'invitation', readonly string[]> = {
  project: ['owner', 'admin', 'developer', 'viewer'],
  workspace: ['owner', 'admin', 'member', 'viewer'],
  invitation: ['owner', 'admin', 'member', 'viewer'],
};
const namesFor = (scope: MemberScope) => ROLE_NAMES[scope];
/** Any role a member may hold already (what it has is judged, not re-validated). */
const ANY_ROLE = [...ROLE_NAMES.project, 'member'];

/** 403 unless the actor may hand out (or take away) what `role` grants (DECISIONS 3 and 15). */
async function mustGrant(ports: PortsOf<'projections'>, permissions: PermissionsPort, projectId: string, actor: Grantee | undefined, role: string, builtIns: readonly string[], verb: string): Promise<void> {
  const target = await roleGrantee(ports, projectId, role, builtIns);
  if (actor && !mayGrant(actor, target, permissions().map((c) => c.permission))) throw forbidden(`A ${actor.permissions ? 'custom-role' : actor.role} credential may not ${verb} a member with role ${role}`);
}

/** A member of the registry `registry` (a project's, or a workspace's: see registryOf); anything else 404. */
async function liveMember(ports: PortsOf<'projections'>, registry: string, scope: MemberScope, memberId: string): Promise<MemberDoc> {
  const doc = await (await ports.projections.collection(membersProjection)).get(memberId);
  if (!doc || doc.projectId !== registry || doc.scope !== scope || doc.status === 'removed') throw notFound('Member not found');
  return doc;
}

@CommandHandler(ChangeMembership)
export class ChangeMembershipHandler implements ICommandHandler<ChangeMembership> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'clock' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>,
    @InjectIdentity() private readonly identity: IdentityPort,
    @InjectPermissions() private readonly permissions: PermissionsPort,
  ) {}

  async execute({ projectId: caller, change, actor, context }: ChangeMembership): Promise<MemberDoc | null> {
    const p = this.ports;
    const memberId = 'memberId' in change ? change.memberId : requestScopedId(context, 'member');
    // The registry written: the caller's project's, or for workspace members its workspace's.
    const projectId = await registryOf(p, caller, 'scope' in change ? change.scope : 'project');
    let command: MembershipCommand;
    const now = p.now();
    // A custom role given is reserved for the member on the role's stream first (a delete then sees
    // it); the membership event names that grant, and one that gives a custom role up releases it.
    let given: { role: string; builtIns: readonly string[] } | undefined;
    switch (change.type) {
      case 'AddMember':
        await mustGrant(p, this.permissions, projectId, actor, change.role, namesFor(change.scope), 'add');
        command = { ...change, memberId, projectId, now };
        given = { role: change.role, builtIns: namesFor(change.scope) };
        break;
      case 'InviteMember': {
        await mustGrant(p, this.permissions, projectId, actor, change.role, ROLE_NAMES.invitation, 'invite');
        const keyed = (t: string) => this.identity.hasher.hash(t);
        command = { ...change, memberId, projectId, now, tokenHash: invitationTokenHash(keyed, invitationToken(keyed, projectId, memberId)) };
        given = { role: change.role, builtIns: ROLE_NAMES.invitation };
        break;
      }
      case 'ChangeMemberRole': {
        const current = await liveMember(p, projectId, change.scope, memberId);
        await mustGrant(p, this.permissions, projectId, actor, current.role, ANY_ROLE, 'change');
        await mustGrant(p, this.permissions, projectId, actor, change.role, namesFor(change.scope), 'give');
        command = { ...change, memberId, projectId, now };
        given = { role: change.role, builtIns: namesFor(change.scope) };
        break;
      }
      case 'RemoveMember':
        // DECISIONS 3: an admin may do everything but remove an owner.
        await mustGrant(p, this.permissions, projectId, actor, (await liveMember(p, projectId, change.scope, memberId)).role, ANY_ROLE, 'remove');
        command = { ...change, memberId, projectId, now };
        break;
      default:
        command = { ...change, memberId, projectId, now };
    }
    const holder = { kind: 'member', id: memberId } as const;
    const custom = given && !given.builtIns.includes(given.role) ? given : undefined;
    const { result, roleGrant } = await reserveThenWrite(
      async () => (custom ? reserveRole(p, projectId, custom.role, holder, custom.builtIns, context) : undefined),
      // Only the role-giving commands (AddMember, InviteMember, ChangeMemberRole) get a grant to name.
      async (roleGrant) => ({ roleGrant, result: await handleCommand(p.events, membershipStream(projectId), membershipDecider, roleGrant ? ({ ...command, roleGrant } as MembershipCommand) : command, context) }),
      (roleGrant) => releaseUnheld(p, projectId, custom?.role ?? '', roleGrant, holder, context),
    ).catch((err) => Promise.reject(err instanceof ResendTooSoon ? resendTooSoon(err.retryAfterSeconds) : err));
    const position = result.position;
    // Given up with this event; or reserved for nothing (the member had the role already).
    const givenUp = result.events[0]?.data as { releasedGrant?: string } | undefined;
    await releaseRole(p, projectId, givenUp?.releasedGrant, context);
    if (position === null) await releaseRole(p, projectId, roleGrant, context);
    await p.waitForProjections(position, [membersProjection.name]);
    if (change.type === 'RemoveMember' || change.type === 'CancelInvitation') return null;
    return p.readBack(membersProjection, membershipStream(projectId), memberId, position);
  }
}

@CommandHandler(AcceptInvitation)
export class AcceptInvitationHandler implements ICommandHandler<AcceptInvitation> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>,
    @InjectIdentity() private readonly identity: IdentityPort,
  ) {}

  async execute({ token, context }: AcceptInvitation): Promise<MemberDoc> {
    const ids = parseInvitationToken(token);
    if (!ids) throw notFound('Invitation not found');
    const { projectId, invitationId: memberId } = ids;
    const tokenHash = invitationTokenHash((t) => this.identity.hasher.hash(t), token);
    const ctx = { metadata: { ...context.metadata, projectId, actor: `invitee:${memberId}`, idempotencyKey: undefined } };
    const { position } = await handleCommand(this.ports.events, membershipStream(projectId), membershipDecider, { type: 'AcceptInvitation', projectId, memberId, tokenHash, now: this.ports.now() }, ctx);
    await this.ports.waitForProjections(position, [membersProjection.name]);
    return (await this.ports.readBack(membersProjection, membershipStream(projectId), memberId, position))!;
  }
}

@QueryHandler(ListMembers)
export class ListMembersHandler implements IQueryHandler<ListMembers> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'events' | 'projections'>) {}

  async execute({ projectId, scope, statuses, list }: ListMembers) {
    const status = statuses.length === 1 ? statuses[0] : { $in: statuses };
    const registry = await registryOf(this.ports, projectId, scope);
    const page = await (await this.ports.projections.collection(membersProjection)).find({ filter: { projectId: registry, scope, status }, ...pageOf(list) });
    return { ...page, now: this.ports.clock.now() };
  }
}

@QueryHandler(GetMember)
export class GetMemberHandler implements IQueryHandler<GetMember> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'projections'>) {}

  async execute({ projectId, scope, memberId }: GetMember): Promise<MemberDoc> {
    return liveMember(this.ports, await registryOf(this.ports, projectId, scope), scope, memberId);
  }
}

export const MEMBER_HANDLERS = [ChangeMembershipHandler, AcceptInvitationHandler, ListMembersHandler, GetMemberHandler];
