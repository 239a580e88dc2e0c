/**
 * Membership (spec 4.11, DECISIONS 15): event-sourced registries of members and invitations, one
 * stream `member-<id>` each. A project's registry (scope `project`: `/v1/iam/team/members`,
 * `/v1/iam/members`, `/v1/projects/{projectId}/members`, invitations as members in status `invited`)
 * is `member-<projectId>`; a workspace's registry (scope `workspace`: `/v1/workspaces/members`) is
 * `member-<workspaceId>`. A workspace's id is the id of the project that started it, so the stream of
 * a workspace's founding project holds both registries, told apart by scope: each rule (one email per
 * registry, the last owner) is decided within its scope. One stream per registry, so those rules are
 * decided on one state and two racing writes are ordered by the expected revision.
 */
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';

export const membershipStream = (projectId: string) => `member-${projectId}`;

export type MemberScope = 'project' | 'workspace';
/** Project members take the DECISIONS 3 roles; invitations and workspace members `member` (acts as developer). */
export const PROJECT_MEMBER_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export const WORKSPACE_MEMBER_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
/** A built-in role name, or a custom role's id (libs/domain/identity/custom-roles.ts). */
export type MemberRole = string;
export type MemberStatus = 'invited' | 'active';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
export const RESEND_INTERVAL_MS = 60_000;

/**
 * `projectId`: the registry's id: the project for scope `project`, the workspace (its founding
 * project's id) for scope `workspace`; the two are the same for every registry from before
 * workspaces. The project a write came from is its metadata's.
 */
type Base = { memberId: string; projectId: string };
/**
 * Custom roles (custom-roles.ts): `roleGrant` names the grant of the custom role `role` recorded on the
 * role's stream before this event; `releasedGrant` the grant the member held until this event (its
 * role's stream is told after). Both absent for built-in roles and for grants from before holds.
 */
type Grant = { roleGrant?: string };
type Release = { releasedGrant?: string };
export type MemberAdded = DomainEvent<'identity.MemberAdded.v1', Base & Grant & { scope: MemberScope; email: string; role: MemberRole; addedAt: string }>;
/** `tokenHash`: a keyed hash of the one-time link's token (never the token). */
export type MemberInvited = DomainEvent<'identity.MemberInvited.v1', Base & Grant & { scope: 'project'; email: string; role: MemberRole; tokenHash: string; invitedAt: string; expiresAt: string }>;
export type InvitationResent = DomainEvent<'identity.InvitationResent.v1', Base & { email: string; resentAt: string; expiresAt: string }>;
/** The mail for `causationId` (a MemberInvited or InvitationResent event id) was handed to the mailer, or refused for good. */
export type InvitationEmailSent = DomainEvent<'identity.InvitationEmailSent.v1', Base & { causationId: string; messageId: string; sentAt: string }>;
export type InvitationEmailFailed = DomainEvent<'identity.InvitationEmailFailed.v1', Base & { causationId: string; reason: string; failedAt: string }>;
export type InvitationAccepted = DomainEvent<'identity.InvitationAccepted.v1', Base & { acceptedAt: string }>;
export type InvitationCancelled = DomainEvent<'identity.InvitationCancelled.v1', Base & Release & { cancelledAt: string }>;
export type MemberRoleChanged = DomainEvent<'identity.MemberRoleChanged.v1', Base & Grant & Release & { from: MemberRole; to: MemberRole; changedAt: string }>;
export type MemberRemoved = DomainEvent<'identity.MemberRemoved.v1', Base & Release & { removedAt: string }>;
/**
 * A custom role's delete found the member's grant `grantId` not (or not yet) made: no add, invite or
 * role change naming it can happen after this. Bookkeeping, kept out of MembershipEvent (the members
 * read model and the mail process need none of it).
 */
export type MemberGrantVoided = DomainEvent<'identity.MemberGrantVoided.v1', Base & { roleId: string; grantId: string; voidedAt: string }>;
export const MemberGrantEventTypes = { MemberGrantVoided: 'identity.MemberGrantVoided.v1' } as const;

export type MembershipEvent =
  | MemberAdded
  | MemberInvited
  | InvitationResent
  | InvitationEmailSent
  | InvitationEmailFailed
  | InvitationAccepted
  | InvitationCancelled
  | MemberRoleChanged
  | MemberRemoved;

export const MembershipEventTypes = {
  MemberAdded: 'identity.MemberAdded.v1',
  MemberInvited: 'identity.MemberInvited.v1',
  InvitationResent: 'identity.InvitationResent.v1',
  InvitationEmailSent: 'identity.InvitationEmailSent.v1',
  InvitationEmailFailed: 'identity.InvitationEmailFailed.v1',
  InvitationAccepted: 'identity.InvitationAccepted.v1',
  InvitationCancelled: 'identity.InvitationCancelled.v1',
  MemberRoleChanged: 'identity.MemberRoleChanged.v1',
  MemberRemoved: 'identity.MemberRemoved.v1',
} as const satisfies Record<string, MembershipEvent['type']>;

export interface Member {
  id: string;
  scope: MemberScope;
  email: string;
  role: MemberRole;
  status: MemberStatus;
  tokenHash: string | null;
  expiresAt: string | null;
  lastSentAt: string | null;
  /** Mail causes already recorded (sent or failed), so a replayed send records nothing twice. */
  mailed: string[];
  /** The grant of the custom role `role` (null: a built-in role, or a grant from before holds). */
  roleGrant: string | null;
}
/** `voidedGrants`: custom-role grants a delete voided before they were made (never made afterwards). */
export type MembershipState = { members: Record<string, Member>; voidedGrants: string[] };

/** Emails are compared case-insensitively (DECISIONS 15). */
export const emailKey = (email: string) => email.trim().toLowerCase();

type At = { now: string };
export type AddMember = At & Base & Grant & { type: 'AddMember'; scope: MemberScope; email: string; role: MemberRole };
export type InviteMember = At & Base & Grant & { type: 'InviteMember'; email: string; role: MemberRole; tokenHash: string };
export type ResendInvitation = At & Base & { type: 'ResendInvitation' };
export type CancelInvitation = At & Base & { type: 'CancelInvitation' };
export type AcceptInvitation = At & Base & { type: 'AcceptInvitation'; tokenHash: string };
export type ChangeMemberRole = At & Base & Grant & { type: 'ChangeMemberRole'; scope: MemberScope; role: MemberRole };
export type RemoveMember = At & Base & { type: 'RemoveMember'; scope: MemberScope };
export type RecordInvitationEmail = At & Base & { type: 'RecordInvitationEmail'; causationId: string; messageId: string; failure?: string };
/** A custom role's delete closes the grant `grantId` of `roleId` to the member unless the member holds the role by it already. */
export type VoidMemberGrant = At & Base & { type: 'VoidMemberGrant'; roleId: string; grantId: string };
export type MembershipCommand = AddMember | InviteMember | ResendInvitation | CancelInvitation | AcceptInvitation | ChangeMemberRole | RemoveMember | RecordInvitationEmail | VoidMemberGrant;
export type MembershipStreamEvent = MembershipEvent | MemberGrantVoided;

/** Whether the member (as folded from the registry's stream) holds the custom role `roleId` now (invited or active). */
export const memberHoldsRole = (state: MembershipState, memberId: string, roleId: string): boolean => state.members[memberId]?.role === roleId;

/** A resend within a minute of the last mail (DECISIONS 15): the HTTP layer answers 429 with `retryAfter`. */
export class ResendTooSoon extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('CONFLICT', `The invitation was sent less than a minute ago; retry in ${retryAfterSeconds} s`);
  }
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const notFound = (what = 'Member') => new DomainError('NOT_FOUND', `${what} not found`);

function evolve(state: MembershipState, event: MembershipStreamEvent): MembershipState {
  const d = event.data;
  const members = { ...state.members };
  const current = members[d.memberId];
  const { voidedGrants } = state;
  const put = (change: Partial<Member>) => {
    if (current) members[d.memberId] = { ...current, ...change };
    return { members, voidedGrants };
  };
  switch (event.type) {
    case 'identity.MemberAdded.v1':
      members[d.memberId] = { id: d.memberId, scope: event.data.scope, email: event.data.email, role: event.data.role, status: 'active', tokenHash: null, expiresAt: null, lastSentAt: null, mailed: [], roleGrant: event.data.roleGrant ?? null };
      return { members, voidedGrants };
    case 'identity.MemberInvited.v1': {
      const e = event.data;
      members[d.memberId] = { id: e.memberId, scope: 'project', email: e.email, role: e.role, status: 'invited', tokenHash: e.tokenHash, expiresAt: e.expiresAt, lastSentAt: e.invitedAt, mailed: [], roleGrant: e.roleGrant ?? null };
      return { members, voidedGrants };
    }
    case 'identity.InvitationResent.v1':
      return put({ lastSentAt: event.data.resentAt, expiresAt: event.data.expiresAt });
    case 'identity.InvitationEmailSent.v1':
    case 'identity.InvitationEmailFailed.v1':
      return put({ mailed: [...(current?.mailed ?? []), event.data.causationId] });
    case 'identity.InvitationAccepted.v1':
      return put({ status: 'active', tokenHash: null, expiresAt: null });
    case 'identity.MemberRoleChanged.v1':
      return put({ role: event.data.to, roleGrant: event.data.roleGrant ?? null });
    case 'identity.InvitationCancelled.v1':
    case 'identity.MemberRemoved.v1':
      delete members[d.memberId];
      return { members, voidedGrants };
    case 'identity.MemberGrantVoided.v1':
      return { members, voidedGrants: [...voidedGrants, event.data.grantId] };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The last active owner of a registry (a project's members, or a workspace's) may not leave or lose the role (DECISIONS 15). */
function guardLastOwner(state: MembershipState, member: Member, verb: string): void {
  if (member.role !== 'owner' || member.status !== 'active') return;
  const owners = Object.values(state.members).filter((m) => m.scope === member.scope && m.role === 'owner' && m.status === 'active');
  if (owners.length === 1) throw new DomainError('INVALID_STATE', `Member ${member.id} is the only owner and cannot be ${verb}`);
}

/** One email per registry (invitations are the project's): a workspace member may also be a project member. */
function refuseDuplicate(state: MembershipState, scope: MemberScope, email: string): void {
  const key = emailKey(email);
  const existing = Object.values(state.members).find((m) => m.scope === scope && emailKey(m.email) === key);
  if (existing) throw new DomainError('CONFLICT', `${existing.status === 'invited' ? 'An invitation' : 'A member'} with email ${email} already exists`);
}

/** A grant a custom role's delete voided never happens: the delete won the race (409, like any lost race). */
function refuseVoided(state: MembershipState, command: { roleGrant?: string; role: MemberRole }): Grant {
  if (command.roleGrant === undefined) return {};
  if (state.voidedGrants.includes(command.roleGrant)) throw new DomainError('CONFLICT', `Role ${command.role} was deleted while it was being granted`);
  return { roleGrant: command.roleGrant };
}
/** The grant a member gives up with its role, for the role's stream to release. */
const releasing = (member: Member): Release => (member.roleGrant ? { releasedGrant: member.roleGrant } : {});

function decide(command: MembershipCommand, state: MembershipState): MembershipStreamEvent[] {
  const { memberId, projectId, now } = command;
  const member = state.members[memberId];
  const base = { memberId, projectId };
  switch (command.type) {
    case 'AddMember': {
      refuseDuplicate(state, command.scope, command.email);
      const grant = refuseVoided(state, command);
      return [{ type: 'identity.MemberAdded.v1', data: { ...base, scope: command.scope, email: command.email.trim(), role: command.role, addedAt: now, ...grant } }];
    }
    case 'InviteMember': {
      refuseDuplicate(state, 'project', command.email);
      const grant = refuseVoided(state, command);
      return [{ type: 'identity.MemberInvited.v1', data: { ...base, scope: 'project', email: command.email.trim(), role: command.role, tokenHash: command.tokenHash, invitedAt: now, expiresAt: plus(now, INVITATION_TTL_MS), ...grant } }];
    }
    case 'ResendInvitation': {
      if (member?.status !== 'invited') throw notFound('Invitation');
      const wait = Date.parse(member.lastSentAt ?? now) + RESEND_INTERVAL_MS - Date.parse(now);
      if (wait > 0) throw new ResendTooSoon(Math.ceil(wait / 1000));
      // A resent link is good for another 7 days.
      return [{ type: 'identity.InvitationResent.v1', data: { ...base, email: member.email, resentAt: now, expiresAt: plus(now, INVITATION_TTL_MS) } }];
    }
    case 'CancelInvitation':
      if (member?.status !== 'invited') throw notFound('Invitation');
      return [{ type: 'identity.InvitationCancelled.v1', data: { ...base, cancelledAt: now, ...releasing(member) } }];
    case 'AcceptInvitation':
      // A cancelled, used or unknown link is one answer: it does not say which.
      if (member?.status !== 'invited' || member.tokenHash !== command.tokenHash) throw notFound('Invitation');
      if (Date.parse(now) >= Date.parse(member.expiresAt!)) throw new DomainError('INVALID_STATE', `Invitation ${memberId} expired at ${member.expiresAt}; ask for it to be resent`);
      return [{ type: 'identity.InvitationAccepted.v1', data: { ...base, acceptedAt: now } }];
    case 'ChangeMemberRole': {
      if (!member || member.scope !== command.scope) throw notFound();
      if (member.role === command.role) return [];
      if (command.role !== 'owner') guardLastOwner(state, member, 'demoted');
      const grant = refuseVoided(state, command);
      return [{ type: 'identity.MemberRoleChanged.v1', data: { ...base, from: member.role, to: command.role, changedAt: now, ...grant, ...releasing(member) } }];
    }
    case 'RemoveMember':
      if (!member || member.scope !== command.scope) throw notFound();
      guardLastOwner(state, member, 'removed');
      return [{ type: 'identity.MemberRemoved.v1', data: { ...base, removedAt: now, ...releasing(member) } }];
    case 'VoidMemberGrant':
      // Made already (the member holds the role by it), or voided already: nothing to close.
      if (state.voidedGrants.includes(command.grantId) || (member?.roleGrant === command.grantId && member.role === command.roleId)) return [];
      return [{ type: 'identity.MemberGrantVoided.v1', data: { ...base, roleId: command.roleId, grantId: command.grantId, voidedAt: now } }];
    case 'RecordInvitationEmail':
      // Cancelled meanwhile, accepted, or already recorded: nothing to add.
      if (member?.status !== 'invited' || member.mailed.includes(command.causationId)) return [];
      return command.failure === undefined
        ? [{ type: 'identity.InvitationEmailSent.v1', data: { ...base, causationId: command.causationId, messageId: command.messageId, sentAt: now } }]
        : [{ type: 'identity.InvitationEmailFailed.v1', data: { ...base, causationId: command.causationId, reason: command.failure, failedAt: now } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const membershipDecider: Decider<MembershipCommand, MembershipStreamEvent, MembershipState> = {
  snapshot: { name: 'membership', version: 1, every: 100 },
  initialState: () => ({ members: {}, voidedGrants: [] }),
  evolve,
  decide,
};

/** Whether a mail for this invitation event is still due (pending, not recorded yet). */
export const invitationMailDue = (state: MembershipState, memberId: string, causationId: string): Member | null => {
  const m = state.members[memberId];
  return m && m.status === 'invited' && !m.mailed.includes(causationId) ? m : null;
};
