import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { z } from 'zod';
import { emailKey, MembershipEventTypes, type MemberScope, type MembershipEvent } from '../../libs/domain/identity/membership';
import type { MEMBER } from '../../libs/domain/identity/member.fields';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

/** A member's declared fields (MEMBER, libs/domain/identity/member.fields.ts) and what only the registry keeps. */
export type MemberDoc = ReadDoc &
  z.output<typeof MEMBER.stored> & {
    projectId: string;
    scope: MemberScope;
    /** The email lower-cased: how members are compared and how a JWT's `email` claim finds its member. */
    emailKey: string;
    lastSentAt: string | null;
    updatedAt: string;
  };

/**
 * Every member list is one shape: `status` is an equality (`$in` of invited and active for the member
 * views, `invited` for invitations), since removed members stay as documents (see `removed`).
 */
export const MEMBERS_LIST: ListShape = { query: 'GET /v1/iam/members, /v1/iam/team/members, /v1/projects/{projectId}/members, /v1/workspaces/members', equal: ['projectId', 'scope', 'status'], sortable: ['createdAt', 'email', 'role', 'status'] };
export const INVITES_LIST: ListShape = { query: 'GET /v1/projects/{projectId}/invites', equal: ['projectId', 'scope', 'status'], sortable: ['createdAt', 'email', 'expiresAt', 'status'] };
const LISTS: ListShape[] = [MEMBERS_LIST, INVITES_LIST];

/**
 * The query that finds a project's owner of record: its oldest active owner member (the customer
 * record's owner email, DECISIONS 18; a ticket's author for an API key, DECISIONS 17).
 */
export const projectOwnerQuery = (projectId: string) => ({
  filter: { projectId, role: 'owner', status: 'active', scope: 'project' },
  sort: [{ field: 'createdAt', direction: 1 as const }],
  limit: 1,
  withTotal: false,
});

/** Members and invitations of every project (an invitation is a member in status `invited`). */
export const membersProjection: DocumentProjection<MemberDoc> = {
  name: 'members',
  version: 1,
  eventTypes: Object.values(MembershipEventTypes),
  creates: [MembershipEventTypes.MemberAdded, MembershipEventTypes.MemberInvited],
  lists: LISTS,
  indexes: [...indexesFor(LISTS), { fields: [{ field: 'projectId', direction: 1 }, { field: 'emailKey', direction: 1 }] }, { fields: [{ field: 'projectId', direction: 1 }, { field: 'role', direction: 1 }] }],
  documentId: (event) => (event.data as { memberId: string }).memberId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as MembershipEvent;
    const touch = (at: string, change: Partial<MemberDoc>) => current && { ...current, ...change, _position: recorded.position, updatedAt: at };
    switch (event.type) {
      case 'identity.MemberAdded.v1':
      case 'identity.MemberInvited.v1': {
        const d = event.data;
        const invited = event.type === 'identity.MemberInvited.v1' ? event.data : null;
        const at = invited ? invited.invitedAt : (d as { addedAt: string }).addedAt;
        return {
          id: d.memberId,
          _position: recorded.position,
          projectId: d.projectId,
          scope: d.scope,
          email: d.email,
          emailKey: emailKey(d.email),
          role: d.role,
          status: invited ? 'invited' : 'active',
          expiresAt: invited?.expiresAt ?? null,
          lastSentAt: invited?.invitedAt ?? null,
          mail: invited ? 'pending' : null,
          createdAt: at,
          updatedAt: at,
        };
      }
      case 'identity.InvitationResent.v1':
        return touch(event.data.resentAt, { lastSentAt: event.data.resentAt, expiresAt: event.data.expiresAt, mail: 'pending' });
      case 'identity.InvitationEmailSent.v1':
        return touch(event.data.sentAt, { mail: 'sent' });
      case 'identity.InvitationEmailFailed.v1':
        return touch(event.data.failedAt, { mail: 'failed' });
      case 'identity.InvitationAccepted.v1':
        return touch(event.data.acceptedAt, { status: 'active', expiresAt: null });
      case 'identity.MemberRoleChanged.v1':
        return touch(event.data.changedAt, { role: event.data.to });
      case 'identity.InvitationCancelled.v1':
        return null;
      case 'identity.MemberRemoved.v1':
        return touch(event.data.removedAt, { status: 'removed', expiresAt: null });
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
