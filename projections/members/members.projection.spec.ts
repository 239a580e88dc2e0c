import type { Condition } from '../../libs/readstore/src/read-store.port';
import { logRecorder, projected } from '../../test/support/projector';
import { membersProjection } from './members.projection';

const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
const invited = { projectId: 'p1', scope: 'project', email: 'Ada@Example.com ', role: 'developer', tokenHash: 'th', invitedAt: at(1), expiresAt: at(8) };

describe('members read model: members and invitations of a registry', () => {
  it('follows an invitation from its mail through a resend to its acceptance', async () => {
    const log = logRecorder();
    const m = log.stream('members-p1', { memberId: 'm1', projectId: 'p1' });
    const model = await projected(membersProjection);
    await model.handle(m('identity.MemberInvited.v1', invited));
    expect(await model.get('m1')).toEqual({ id: 'm1', _position: 1, projectId: 'p1', scope: 'project', email: 'Ada@Example.com ', emailKey: 'ada@example.com', role: 'developer', status: 'invited', expiresAt: at(8), lastSentAt: at(1), mail: 'pending', createdAt: at(1), updatedAt: at(1) });

    await model.handle(m('identity.InvitationEmailFailed.v1', { causationId: 'e1', reason: 'smtp 550', failedAt: at(1) }));
    expect(await model.get('m1')).toMatchObject({ mail: 'failed' });
    await model.handle(m('identity.InvitationResent.v1', { email: invited.email, resentAt: at(3), expiresAt: at(10) }));
    expect(await model.get('m1')).toMatchObject({ mail: 'pending', lastSentAt: at(3), expiresAt: at(10), updatedAt: at(3) });
    await model.handle(m('identity.InvitationEmailSent.v1', { causationId: 'e3', messageId: 'msg', sentAt: at(3) }));
    expect(await model.get('m1')).toMatchObject({ mail: 'sent' });
    await model.handle(m('identity.InvitationAccepted.v1', { acceptedAt: at(4) }));
    expect(await model.get('m1')).toMatchObject({ status: 'active', expiresAt: null, createdAt: at(1), updatedAt: at(4) });
  });

  it('adds a member active at once, changes its role, and keeps it as removed', async () => {
    const log = logRecorder();
    const m = log.stream('members-p1', { memberId: 'm2', projectId: 'p1' });
    const model = await projected(membersProjection);
    await model.handle(m('identity.MemberAdded.v1', { scope: 'workspace', email: 'bob@example.com', role: 'member', addedAt: at(1) }));
    expect(await model.get('m2')).toMatchObject({ scope: 'workspace', status: 'active', mail: null, expiresAt: null, lastSentAt: null, createdAt: at(1) });
    await model.handle(m('identity.MemberRoleChanged.v1', { from: 'member', to: 'admin', changedAt: at(2) }));
    expect(await model.get('m2')).toMatchObject({ role: 'admin', updatedAt: at(2) });
    await model.handle(m('identity.MemberRemoved.v1', { removedAt: at(3) }));
    // Kept, so that a registry that ever had members keeps judging JWTs by it.
    expect(await model.get('m2')).toMatchObject({ status: 'removed', role: 'admin', updatedAt: at(3) });
  });

  it('deletes a cancelled invitation', async () => {
    const log = logRecorder();
    const m = log.stream('members-p1', { memberId: 'm3', projectId: 'p1' });
    const model = await projected(membersProjection);
    await model.handle(m('identity.MemberInvited.v1', invited));
    await model.handle(m('identity.InvitationCancelled.v1', { cancelledAt: at(2) }));
    expect(await model.all()).toEqual([]);
  });

  it('serves the member views and the invitation list by status, and a JWT\'s email by its key', async () => {
    const log = logRecorder();
    const s = log.stream('members-p1', { projectId: 'p1' });
    const model = await projected(membersProjection);
    await model.handle(
      s('identity.MemberAdded.v1', { memberId: 'a', scope: 'project', email: 'a@x.io', role: 'owner', addedAt: at(1) }),
      s('identity.MemberInvited.v1', { ...invited, memberId: 'b' }),
      s('identity.MemberAdded.v1', { memberId: 'c', scope: 'project', email: 'c@x.io', role: 'viewer', addedAt: at(2) }),
      s('identity.MemberRemoved.v1', { memberId: 'c', removedAt: at(3) }),
    );
    const ids = async (status: Condition) => (await model.collection.find({ filter: { projectId: 'p1', scope: 'project', status }, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await ids({ $in: ['invited', 'active'] })).toEqual(['a', 'b']);
    expect(await ids('invited')).toEqual(['b']);
    expect(await model.collection.findOne({ projectId: 'p1', emailKey: 'ada@example.com' })).toMatchObject({ id: 'b' });
  });

  it('does not revive a removed member when the log hands its events again after a restart', async () => {
    const log = logRecorder();
    const m = log.stream('members-p1', { memberId: 'm2', projectId: 'p1' });
    const events = [m('identity.MemberAdded.v1', { scope: 'project', email: 'bob@example.com', role: 'admin', addedAt: at(1) }), m('identity.MemberRemoved.v1', { removedAt: at(3) })];
    const model = await projected(membersProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect(await model.get('m2')).toMatchObject({ status: 'removed', _position: 2 });
    expect(await model.handle(events[1])).toBe(false);
  });
});
