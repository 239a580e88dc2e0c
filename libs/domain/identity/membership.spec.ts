import { createHmac } from 'node:crypto';
import { deciderSpec } from '../shared/decider-spec';
import { membershipDecider, ResendTooSoon, type MembershipEvent } from './membership';
import { customRolesDecider, type CustomRoleEvent } from './custom-roles';
import { providerKeyDecider, type ProviderKeyEvent } from './provider-keys';
import { invitationToken, invitationTokenHash, parseInvitationToken } from './invitation-token';

const given = deciderSpec(membershipDecider);
const now = '2026-01-01T00:00:00.000Z';
const base = { projectId: 'p1', now };
const added = (memberId: string, email: string, role = 'owner', scope: 'project' | 'workspace' = 'project'): MembershipEvent => ({
  type: 'identity.MemberAdded.v1',
  data: { memberId, projectId: 'p1', scope, email, role, addedAt: now },
});
const invited: MembershipEvent = {
  type: 'identity.MemberInvited.v1',
  data: { memberId: 'i1', projectId: 'p1', scope: 'project', email: 'Bob@Example.com', role: 'member', tokenHash: 'h', invitedAt: now, expiresAt: '2026-01-08T00:00:00.000Z' },
};

describe('membership decider (DECISIONS 15)', () => {
  it('adds members and refuses an email already in the registry, compared case-insensitively (409)', () => {
    given([]).when({ ...base, type: 'AddMember', memberId: 'm1', scope: 'project', email: ' ann@example.com ', role: 'owner' }).then([added('m1', 'ann@example.com')]);
    given([added('m1', 'ann@example.com')]).when({ ...base, type: 'AddMember', memberId: 'm2', scope: 'project', email: 'ANN@example.COM', role: 'viewer' }).thenThrows('CONFLICT');
    given([added('m1', 'ann@example.com', 'member', 'workspace')]).when({ ...base, type: 'AddMember', memberId: 'm2', scope: 'workspace', email: 'ANN@example.COM', role: 'member' }).thenThrows('CONFLICT');
    given([added('m1', 'ann@example.com')]).when({ ...base, type: 'InviteMember', memberId: 'i2', email: 'ann@example.com', role: 'member', tokenHash: 'x' }).thenThrows('CONFLICT');
    given([invited]).when({ ...base, type: 'InviteMember', memberId: 'i2', email: 'bob@example.com', role: 'member', tokenHash: 'x' }).thenThrows('CONFLICT', /invitation/);
  });

  it('keeps the workspace registry apart from the project registry that shares its stream (the founding project’s)', () => {
    given([added('m1', 'ann@example.com')])
      .when({ ...base, type: 'AddMember', memberId: 'm2', scope: 'workspace', email: 'ANN@example.com', role: 'member' })
      .then([{ type: 'identity.MemberAdded.v1', data: { memberId: 'm2', projectId: 'p1', scope: 'workspace', email: 'ANN@example.com', role: 'member', addedAt: now } }]);
  });

  it('never removes or demotes the only active owner of a registry (409 INVALID_STATE), but does once another owner of it exists', () => {
    const owner = added('m1', 'ann@example.com');
    given([owner]).when({ ...base, type: 'RemoveMember', memberId: 'm1', scope: 'project' }).thenThrows('INVALID_STATE', /only owner/);
    given([owner]).when({ ...base, type: 'ChangeMemberRole', memberId: 'm1', scope: 'project', role: 'admin' }).thenThrows('INVALID_STATE');
    // A workspace owner is no owner of the project's registry, and the other way round.
    given([owner, added('m2', 'cy@example.com', 'owner', 'workspace')]).when({ ...base, type: 'RemoveMember', memberId: 'm1', scope: 'project' }).thenThrows('INVALID_STATE');
    given([owner, added('m2', 'cy@example.com', 'owner', 'workspace')]).when({ ...base, type: 'ChangeMemberRole', memberId: 'm2', scope: 'workspace', role: 'admin' }).thenThrows('INVALID_STATE');
    given([owner, added('m2', 'cy@example.com', 'owner')])
      .when({ ...base, type: 'RemoveMember', memberId: 'm1', scope: 'project' })
      .then([{ type: 'identity.MemberRemoved.v1', data: { memberId: 'm1', projectId: 'p1', removedAt: now } }]);
  });

  it('answers NOT_FOUND for a member of another view (scope) or none', () => {
    given([added('m1', 'a@x.io', 'viewer', 'workspace')]).when({ ...base, type: 'RemoveMember', memberId: 'm1', scope: 'project' }).thenThrows('NOT_FOUND');
    given([]).when({ ...base, type: 'ChangeMemberRole', memberId: 'm1', scope: 'project', role: 'viewer' }).thenThrows('NOT_FOUND');
  });

  it('accepts with the right token before expiry only; a cancelled link is gone', () => {
    given([invited]).when({ ...base, type: 'AcceptInvitation', memberId: 'i1', tokenHash: 'h' }).then([{ type: 'identity.InvitationAccepted.v1', data: { memberId: 'i1', projectId: 'p1', acceptedAt: now } }]);
    given([invited]).when({ ...base, type: 'AcceptInvitation', memberId: 'i1', tokenHash: 'wrong' }).thenThrows('NOT_FOUND');
    given([invited]).when({ ...base, now: '2026-01-08T00:00:00.000Z', type: 'AcceptInvitation', memberId: 'i1', tokenHash: 'h' }).thenThrows('INVALID_STATE', /expired/);
    const cancelled: MembershipEvent = { type: 'identity.InvitationCancelled.v1', data: { memberId: 'i1', projectId: 'p1', cancelledAt: now } };
    given([invited, cancelled]).when({ ...base, type: 'AcceptInvitation', memberId: 'i1', tokenHash: 'h' }).thenThrows('NOT_FOUND');
  });

  it('resends at most once a minute, renewing the 7 days', () => {
    expect(() => membershipDecider.decide({ ...base, now: '2026-01-01T00:00:30.000Z', type: 'ResendInvitation', memberId: 'i1' }, membershipDecider.evolve(membershipDecider.initialState(), invited))).toThrow(ResendTooSoon);
    given([invited])
      .when({ ...base, now: '2026-01-01T00:01:00.000Z', type: 'ResendInvitation', memberId: 'i1' })
      .then([{ type: 'identity.InvitationResent.v1', data: { memberId: 'i1', projectId: 'p1', email: 'Bob@Example.com', resentAt: '2026-01-01T00:01:00.000Z', expiresAt: '2026-01-08T00:01:00.000Z' } }]);
  });

  it('records each invitation mail once', () => {
    const sent: MembershipEvent = { type: 'identity.InvitationEmailSent.v1', data: { memberId: 'i1', projectId: 'p1', causationId: 'e1', messageId: '<e1@x>', sentAt: now } };
    given([invited]).when({ ...base, type: 'RecordInvitationEmail', memberId: 'i1', causationId: 'e1', messageId: '<e1@x>' }).then([sent]);
    given([invited, sent]).when({ ...base, type: 'RecordInvitationEmail', memberId: 'i1', causationId: 'e1', messageId: '<e1@x>' }).thenNothingHappens();
  });
});

describe('custom roles decider', () => {
  const roles = deciderSpec(customRolesDecider);
  const created: CustomRoleEvent = { type: 'identity.RoleCreated.v1', data: { roleId: 'r1', projectId: 'p1', name: 'Ops', description: null, permissions: ['instances:*'], createdAt: now } };
  it('keeps names unique (case-insensitive, built-in names taken) and refuses deleting a role in use', () => {
    roles([]).when({ ...base, type: 'CreateRole', roleId: 'r1', name: 'Ops', description: null, permissions: ['instances:*', 'instances:*'] }).then([{ ...created, data: { ...created.data, holdsRecorded: true } } as CustomRoleEvent]);
    roles([created]).when({ ...base, type: 'CreateRole', roleId: 'r2', name: 'ops', description: null, permissions: ['*:read'] }).thenThrows('CONFLICT');
    roles([]).when({ ...base, type: 'CreateRole', roleId: 'r2', name: 'Admin', description: null, permissions: ['*:read'] }).thenThrows('CONFLICT');
    // A role from before holds were recorded (no holdsRecorded): its holders are counted by the caller.
    roles([created]).when({ ...base, type: 'DeleteRole', roleId: 'r1', released: [], unrecordedHolders: 1 }).thenThrows('CONFLICT', /in use/);
    roles([created]).when({ ...base, type: 'DeleteRole', roleId: 'r1', released: [], unrecordedHolders: 0 }).then([{ type: 'identity.RoleDeleted.v1', data: { roleId: 'r1', projectId: 'p1', deletedAt: now } }]);
  });
});

describe('provider key decider', () => {
  const keys = deciderSpec(providerKeyDecider);
  const created: ProviderKeyEvent = { type: 'identity.ProviderKeyCreated.v1', data: { keyId: 'k1', projectId: 'p1', name: 'n', providerId: 'pr', prefix: 'pk_', secretRef: 'cred_1', createdAt: now } };
  it('rotates an active key of the project only, and deletes once', () => {
    keys([created]).when({ ...base, type: 'RotateProviderKey', keyId: 'k1', prefix: 'pk_2', secretRef: 'cred_2' }).then([{ type: 'identity.ProviderKeyRotated.v1', data: { keyId: 'k1', projectId: 'p1', prefix: 'pk_2', secretRef: 'cred_2', previousRef: 'cred_1', rotatedAt: now } }]);
    keys([created]).when({ ...base, projectId: 'p2', type: 'DeleteProviderKey', keyId: 'k1' }).thenThrows('NOT_FOUND');
    const deleted: ProviderKeyEvent = { type: 'identity.ProviderKeyDeleted.v1', data: { keyId: 'k1', projectId: 'p1', secretRef: 'cred_1', deletedAt: now } };
    keys([created]).when({ ...base, type: 'DeleteProviderKey', keyId: 'k1' }).then([deleted]);
    keys([created, deleted]).when({ ...base, type: 'DeleteProviderKey', keyId: 'k1' }).thenThrows('NOT_FOUND');
  });
});

describe('invitation tokens', () => {
  const keyed = (t: string) => createHmac('sha256', 'pepper').update(t).digest('hex');
  it('name their project and invitation, and differ per invitation and key', () => {
    const t = invitationToken(keyed, 'p1', 'i1');
    expect(parseInvitationToken(t)).toEqual({ projectId: 'p1', invitationId: 'i1' });
    expect(invitationToken(keyed, 'p1', 'i2')).not.toBe(t);
    expect(invitationTokenHash(keyed, t)).not.toContain(t.split('.')[3]);
    expect(parseInvitationToken('inv.x.y.z')).toBeNull();
  });
});
