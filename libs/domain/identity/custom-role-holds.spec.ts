import { deciderSpec } from '../shared/decider-spec';
import { apiKeyDecider, apiKeyHoldsRole, type ApiKeyEvent, type IssueApiKey } from './api-key.decider';
import { customRolesDecider, type CustomRolesStreamEvent, type RoleHolder } from './custom-roles';
import { memberHoldsRole, membershipDecider, type MembershipStreamEvent } from './membership';

/**
 * A custom role is never deleted while something holds it: every grant is a hold decided on the
 * role's stream (so a delete and a grant are ordered by one revision), the holder's own event names
 * the grant, and a grant that never happened is closed on the holder's stream before a delete
 * releases it.
 */
const now = '2026-01-01T00:00:00.000Z';
const base = { projectId: 'p1', now };
const key: RoleHolder = { kind: 'api-key', id: 'k1' };
const ann: RoleHolder = { kind: 'member', id: 'm1' };

const created: CustomRolesStreamEvent = { type: 'identity.RoleCreated.v1', data: { roleId: 'r1', projectId: 'p1', name: 'Ops', description: null, permissions: ['*:read'], createdAt: now, holdsRecorded: true } };
const legacy: CustomRolesStreamEvent = { type: 'identity.RoleCreated.v1', data: { roleId: 'r1', projectId: 'p1', name: 'Ops', description: null, permissions: ['*:read'], createdAt: now } };
const granted = (grantId: string, holder: RoleHolder): CustomRolesStreamEvent => ({ type: 'identity.RoleGranted.v1', data: { roleId: 'r1', projectId: 'p1', grantId, holder, grantedAt: now } });
const released = (grantId: string, holder: RoleHolder): CustomRolesStreamEvent => ({ type: 'identity.RoleReleased.v1', data: { roleId: 'r1', projectId: 'p1', grantId, holder, releasedAt: now } });
const deleted: CustomRolesStreamEvent = { type: 'identity.RoleDeleted.v1', data: { roleId: 'r1', projectId: 'p1', deletedAt: now } };

describe('custom role holds: the role stream', () => {
  const roles = deciderSpec(customRolesDecider);
  const del = (released: string[], unrecordedHolders = 0) => ({ ...base, type: 'DeleteRole' as const, roleId: 'r1', released, unrecordedHolders });

  it('records a grant as a hold before the holder’s event, once per grant', () => {
    roles([created]).when({ ...base, type: 'GrantRole', roleId: 'r1', grantId: 'g1', holder: key }).then([granted('g1', key)]);
    roles([created, granted('g1', key)]).when({ ...base, type: 'GrantRole', roleId: 'r1', grantId: 'g1', holder: key }).thenNothingHappens();
  });

  it('refuses a grant once the delete is on the stream (the race is decided by its order)', () => {
    roles([created, deleted]).when({ ...base, type: 'GrantRole', roleId: 'r1', grantId: 'g1', holder: key }).thenThrows('NOT_FOUND');
    roles([]).when({ ...base, type: 'GrantRole', roleId: 'r1', grantId: 'g1', holder: key }).thenThrows('NOT_FOUND');
  });

  it('refuses a delete while a hold is not proven released, a grant recorded after the caller looked included', () => {
    roles([created, granted('g1', key)]).when(del([])).thenThrows('CONFLICT', /in use by 1/);
    // The caller proved g1 void, but g2 came after its look: still in use.
    roles([created, granted('g1', key), granted('g2', ann)]).when(del(['g1'])).thenThrows('CONFLICT', /in use by 1/);
  });

  it('deletes a role whose holds are all proven released, releasing them with the delete', () => {
    roles([created]).when(del([])).then([deleted]);
    roles([created, granted('g1', key), granted('g2', ann), released('g2', ann)]).when(del(['g1'])).then([released('g1', key), deleted]);
  });

  it('releases a hold by its grant, once; nothing for an unknown grant or a deleted role', () => {
    roles([created, granted('g1', key)]).when({ ...base, type: 'ReleaseRole', grantId: 'g1' }).then([released('g1', key)]);
    roles([created, granted('g1', key), released('g1', key)]).when({ ...base, type: 'ReleaseRole', grantId: 'g1' }).thenNothingHappens();
    roles([created, granted('g1', key), deleted]).when({ ...base, type: 'ReleaseRole', grantId: 'g1' }).thenNothingHappens();
    // A later grant of the same holder is its own hold: releasing the earlier one leaves it.
    roles([created, granted('g1', ann), granted('g2', ann), released('g1', ann)]).when(del([])).thenThrows('CONFLICT', /in use by 1/);
  });

  it('counts the holders of a role from before holds were recorded (no holdsRecorded) with its holds; ignores the count for newer roles', () => {
    roles([legacy]).when(del([], 2)).thenThrows('CONFLICT', /in use by 2/);
    roles([legacy, granted('g1', key)]).when(del(['g1'], 0)).then([released('g1', key), deleted]);
    roles([created]).when(del([], 2)).then([deleted]);
  });

  it('keeps its holds across a rename or a change of permissions', () => {
    const updated: CustomRolesStreamEvent = { type: 'identity.RoleUpdated.v1', data: { roleId: 'r1', projectId: 'p1', name: 'Ops2', description: null, permissions: ['*:*'], updatedAt: now } };
    roles([created, granted('g1', key), updated]).when(del([])).thenThrows('CONFLICT', /Ops2 is in use/);
  });
});

describe('custom role holds: an API key’s stream', () => {
  const keys = deciderSpec(apiKeyDecider);
  const issue: IssueApiKey = { type: 'IssueApiKey', keyId: 'k1', projectId: 'p1', scope: 'project', name: 'ci', prefix: 'svc_test_ab12', keyHash: 'h', role: 'viewer', customRoleId: 'r1', roleGrant: 'g1', expiresAt: null, now };
  const issued: ApiKeyEvent = { type: 'identity.ApiKeyIssued.v1', data: { keyId: 'k1', projectId: 'p1', scope: 'project', name: 'ci', prefix: 'svc_test_ab12', keyHash: 'h', role: 'viewer', customRoleId: 'r1', roleGrant: 'g1', expiresAt: null, createdAt: now } };
  const voided: ApiKeyEvent = { type: 'identity.ApiKeyGrantVoided.v1', data: { keyId: 'k1', projectId: 'p1', roleId: 'r1', grantId: 'g1', voidedAt: now } };
  const revoked: ApiKeyEvent = { type: 'identity.ApiKeyRevoked.v1', data: { keyId: 'k1', projectId: 'p1', revokedAt: now } };
  const fold = (events: ApiKeyEvent[]) => events.reduce(apiKeyDecider.evolve, apiKeyDecider.initialState());
  const voidIt = { type: 'VoidApiKeyGrant' as const, keyId: 'k1', projectId: 'p1', roleId: 'r1', grantId: 'g1', now };

  it('names its grant on the issue', () => {
    keys([]).when(issue).then([issued]);
  });

  it('closes a key not issued yet, which then can never be issued (the delete won)', () => {
    keys([]).when(voidIt).then([voided]);
    keys([voided]).when(issue).thenThrows('CONFLICT', /deleted/);
    keys([voided]).when(voidIt).thenNothingHappens();
    keys([voided]).when({ type: 'RevokeApiKey', keyId: 'k1', projectId: 'p1', now }).thenThrows('NOT_FOUND');
    expect(apiKeyHoldsRole(fold([voided]), 'r1')).toBe(false);
  });

  it('leaves an issued key alone; it holds its role until revoked', () => {
    keys([issued]).when(voidIt).thenNothingHappens();
    expect(apiKeyHoldsRole(fold([issued]), 'r1')).toBe(true);
    expect(apiKeyHoldsRole(fold([issued]), 'r2')).toBe(false);
    expect(apiKeyHoldsRole(fold([issued, revoked]), 'r1')).toBe(false);
    expect(fold([issued, revoked])).toMatchObject({ status: 'revoked', roleGrant: 'g1' });
  });

  it('folds a key from before holds (no roleGrant) as holding its custom role', () => {
    const { roleGrant: _g, ...old } = (issued as { data: Record<string, unknown> }).data;
    const before = { type: 'identity.ApiKeyIssued.v1', data: old } as ApiKeyEvent;
    expect(fold([before])).toMatchObject({ status: 'active', customRoleId: 'r1', roleGrant: null });
    expect(apiKeyHoldsRole(fold([before]), 'r1')).toBe(true);
  });
});

describe('custom role holds: a membership registry’s stream', () => {
  const members = deciderSpec(membershipDecider);
  const fold = (events: MembershipStreamEvent[]) => events.reduce(membershipDecider.evolve, membershipDecider.initialState());
  const owner: MembershipStreamEvent = { type: 'identity.MemberAdded.v1', data: { memberId: 'o1', projectId: 'p1', scope: 'project', email: 'o@x.io', role: 'owner', addedAt: now } };
  const added: MembershipStreamEvent = { type: 'identity.MemberAdded.v1', data: { memberId: 'm1', projectId: 'p1', scope: 'project', email: 'ann@x.io', role: 'r1', addedAt: now, roleGrant: 'g1' } };
  const voided = (grantId: string): MembershipStreamEvent => ({ type: 'identity.MemberGrantVoided.v1', data: { memberId: 'm1', projectId: 'p1', roleId: 'r1', grantId, voidedAt: now } });
  const add = { ...base, type: 'AddMember' as const, memberId: 'm1', scope: 'project' as const, email: 'ann@x.io', role: 'r1', roleGrant: 'g1' };
  const voidIt = (grantId: string) => ({ ...base, type: 'VoidMemberGrant' as const, memberId: 'm1', roleId: 'r1', grantId });

  it('names the grant on the add, and the grant given up on a removal or a change of role', () => {
    members([owner]).when(add).then([added]);
    members([owner, added]).when({ ...base, type: 'RemoveMember', memberId: 'm1', scope: 'project' }).then([{ type: 'identity.MemberRemoved.v1', data: { memberId: 'm1', projectId: 'p1', removedAt: now, releasedGrant: 'g1' } }]);
    members([owner, added])
      .when({ ...base, type: 'ChangeMemberRole', memberId: 'm1', scope: 'project', role: 'r2', roleGrant: 'g2' })
      .then([{ type: 'identity.MemberRoleChanged.v1', data: { memberId: 'm1', projectId: 'p1', from: 'r1', to: 'r2', changedAt: now, roleGrant: 'g2', releasedGrant: 'g1' } }]);
  });

  it('closes a grant not made yet: no add, invite or change of role may use it afterwards (the delete won)', () => {
    members([owner]).when(voidIt('g1')).then([voided('g1')]);
    members([owner, voided('g1')]).when(add).thenThrows('CONFLICT', /deleted/);
    members([owner, voided('g1')]).when({ ...base, type: 'InviteMember', memberId: 'm1', email: 'ann@x.io', role: 'r1', tokenHash: 'h', roleGrant: 'g1' }).thenThrows('CONFLICT', /deleted/);
    const viewer: MembershipStreamEvent = { type: 'identity.MemberAdded.v1', data: { memberId: 'm1', projectId: 'p1', scope: 'project', email: 'ann@x.io', role: 'viewer', addedAt: now } };
    members([owner, viewer, voided('g1')]).when({ ...base, type: 'ChangeMemberRole', memberId: 'm1', scope: 'project', role: 'r1', roleGrant: 'g1' }).thenThrows('CONFLICT', /deleted/);
    members([owner, voided('g1')]).when(voidIt('g1')).thenNothingHappens();
  });

  it('leaves a grant that was made alone, and tells whether the member holds the role', () => {
    members([owner, added]).when(voidIt('g1')).thenNothingHappens();
    expect(memberHoldsRole(fold([owner, added]), 'm1', 'r1')).toBe(true);
    const removed: MembershipStreamEvent = { type: 'identity.MemberRemoved.v1', data: { memberId: 'm1', projectId: 'p1', removedAt: now, releasedGrant: 'g1' } };
    expect(memberHoldsRole(fold([owner, added, removed]), 'm1', 'r1')).toBe(false);
    // Made, then given up: closing it changes nothing for the member (it holds no role by it).
    members([owner, added, removed]).when(voidIt('g1')).then([voided('g1')]);
  });

  it('folds members from before holds (no roleGrant): they hold their custom role, and give up no recorded grant', () => {
    const before: MembershipStreamEvent = { type: 'identity.MemberAdded.v1', data: { memberId: 'm1', projectId: 'p1', scope: 'project', email: 'ann@x.io', role: 'r1', addedAt: now } };
    expect(memberHoldsRole(fold([owner, before]), 'm1', 'r1')).toBe(true);
    members([owner, before]).when({ ...base, type: 'RemoveMember', memberId: 'm1', scope: 'project' }).then([{ type: 'identity.MemberRemoved.v1', data: { memberId: 'm1', projectId: 'p1', removedAt: now } }]);
  });
});
