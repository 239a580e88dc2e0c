import { v7 as uuidv7 } from 'uuid';
import { apiKeyDecider } from '../../libs/domain/identity/api-key.decider';
import { customRolesDecider, customRolesStream } from '../../libs/domain/identity/custom-roles';
import { apiKeyStream } from '../../libs/domain/identity/events';
import { membershipDecider, membershipStream } from '../../libs/domain/identity/membership';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

/**
 * A custom role is never deleted while something holds it (DECISIONS 15: a role in use cannot be
 * deleted), even when the delete and the grants arrive at the same instant: 20 API keys and 3 members
 * are given the role while it is deleted, a few times over with the delete at different moments.
 * Afterwards either the role is gone and nothing holds it, or it is there and every grant answered 201
 * holds it (and the delete answered 409). Nothing answers 500.
 */
describe.each<Profile>(['embedded', 'server'])('custom role delete racing its grants (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: ReturnType<TestServer['as']>;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  async function unrevokedKeysWith(roleId: string): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const res = await owner.get(`/v1/api-keys?revoked=false&limit=100&page=${page}`);
      expect(res.status).toBe(200);
      for (const k of res.body.data) if (k.attributes.role === roleId) ids.push(k.id);
      if (res.body.data.length < 100) return ids;
    }
  }
  async function membersWith(roleId: string): Promise<string[]> {
    const res = await owner.get('/v1/iam/members?limit=100');
    expect(res.status).toBe(200);
    return res.body.data.filter((m: { attributes: { role: string } }) => m.attributes.role === roleId).map((m: { id: string }) => m.id);
  }

  it('ends either deleted with no holder, or in place with every granted key and member holding it', async () => {
    const outcomes = { deleted: 0, kept: 0, statuses: {} as Record<string, number> };
    // When the delete is sent: before every grant, right after the n-th key grant is sent, or once n
    // key grants have been answered. No timers: each round's order is set by what was sent or answered.
    type When = { first: true } | { afterSent: number } | { afterAnswered: number };
    const schedule: When[] = [{ first: true }, { afterSent: 0 }, { afterSent: 2 }, { afterSent: 6 }, { afterSent: 10 }, { afterSent: 15 }, { afterSent: 19 }, { afterAnswered: 1 }, { afterAnswered: 3 }, { afterAnswered: 8 }, { afterAnswered: 14 }, { afterAnswered: 20 }];
    for (const [round, when] of schedule.entries()) {
      const role = await owner.post('/v1/iam/roles', { name: `Racing ${profile} ${round}`, permissions: ['*:read'] });
      expect(role.status).toBe(201);
      const roleId: string = role.body.data.id;

      const remove = () => owner.delete(`/v1/iam/roles/${roleId}`);
      let deletion = 'first' in when ? remove() : undefined;
      let answered = 0;
      let nthAnswered: () => void = () => undefined;
      const enoughAnswered = new Promise<void>((resolve) => (nthAnswered = resolve));
      const keyGrants = Array.from({ length: 20 }, (_, i) => {
        const grant = owner.post('/v1/api-keys', { name: `race-${round}-${i}`, role: roleId }).then((r) => {
          if ('afterAnswered' in when && ++answered === when.afterAnswered) nthAnswered();
          return r;
        });
        if ('afterSent' in when && when.afterSent === i) deletion = remove();
        return grant;
      });
      const memberGrants = Array.from({ length: 3 }, (_, i) => owner.post('/v1/iam/members', { email: `race-${round}-${i}@${profile}.example.com`, role: roleId }));
      deletion ??= enoughAnswered.then(remove);
      const [keys, members, del] = await Promise.all([Promise.all(keyGrants), Promise.all(memberGrants), deletion]);

      // Refusals are 400 (the role is gone) or 409 (the delete won the race, or the role is in use): never 500.
      for (const r of [...keys, ...members, del]) {
        const why = r.status < 300 ? String(r.status) : `${r.status} ${String(r.body?.errors?.[0]?.detail).replace(/[0-9a-f-]{36}/g, '<id>').replace(/\d+/g, 'n')}`;
        outcomes.statuses[why] = (outcomes.statuses[why] ?? 0) + 1;
      }
      for (const r of [...keys, ...members]) expect([201, 400, 409]).toContain(r.status);
      expect([204, 409]).toContain(del.status);

      const granted = keys.filter((r) => r.status === 201).map((r) => r.body.data.id as string);
      const grantedMembers = members.filter((r) => r.status === 201).map((r) => r.body.data.id as string);
      const found = await owner.get(`/v1/iam/roles/${roleId}`);
      if (del.status === 204) {
        outcomes.deleted++;
        expect(found.status).toBe(404);
        expect(await unrevokedKeysWith(roleId)).toEqual([]);
        expect(await membersWith(roleId)).toEqual([]);
        // A grant the delete overtook is refused after it (never issued).
        expect(granted).toEqual([]);
        expect(grantedMembers).toEqual([]);
        expect((await owner.post('/v1/api-keys', { name: `late-${round}`, role: roleId })).status).toBe(400);
      } else {
        outcomes.kept++;
        expect(found.status).toBe(200);
        expect((await unrevokedKeysWith(roleId)).sort()).toEqual([...granted].sort());
        expect((await membersWith(roleId)).sort()).toEqual([...grantedMembers].sort());
        expect(granted.length + grantedMembers.length).toBeGreaterThan(0);
        // Released by revoking and removing every holder, the role can go.
        for (const id of granted) expect((await owner.delete(`/v1/api-keys/${id}`)).status).toBe(204);
        for (const id of grantedMembers) expect((await owner.delete(`/v1/iam/members/${id}`)).status).toBe(204);
        expect((await owner.delete(`/v1/iam/roles/${roleId}`)).status).toBe(204);
        expect(await unrevokedKeysWith(roleId)).toEqual([]);
      }
    }
    // Which side wins depends on the order; both must be sound (logged for whoever tunes the schedule).
    console.log(`${profile}: ${JSON.stringify(outcomes)}`);
  }, 180_000);

  /** Writes to the event store as a request would have before it crashed. */
  const ctx: CommandContext = { metadata: { actor: 'test:crash' } };
  const now = () => new Date().toISOString();
  const issue = (keyId: string, roleId: string, roleGrant?: string) =>
    handleCommand(srv.platform.events, apiKeyStream(keyId), apiKeyDecider, { type: 'IssueApiKey', keyId, projectId: srv.bootstrap.projectId, scope: 'project', name: 'crashed', prefix: 'svc_test_xxx', keyHash: `h-${keyId}`, role: 'viewer', customRoleId: roleId, ...(roleGrant ? { roleGrant } : {}), expiresAt: null, now: now() }, ctx);
  const grant = async (roleId: string, kind: 'api-key' | 'member', id: string) => {
    const grantId = uuidv7();
    await handleCommand(srv.platform.events, customRolesStream(srv.bootstrap.projectId), customRolesDecider, { type: 'GrantRole', projectId: srv.bootstrap.projectId, roleId, grantId, holder: { kind, id }, now: now() }, ctx);
    return grantId;
  };

  it('does not let a grant whose holder was never written (a crash between the two appends) block the delete, and never makes it afterwards', async () => {
    const roleId: string = (await owner.post('/v1/iam/roles', { name: `Crashed ${profile}`, permissions: ['*:read'] })).body.data.id;
    const [keyId, memberId] = [uuidv7(), uuidv7()];
    const keyGrant = await grant(roleId, 'api-key', keyId);
    const memberGrant = await grant(roleId, 'member', memberId);
    // A key that was issued and revoked, but whose release was never recorded (a crash after the revoke).
    const revokedId = uuidv7();
    await issue(revokedId, roleId, await grant(roleId, 'api-key', revokedId));
    await handleCommand(srv.platform.events, apiKeyStream(revokedId), apiKeyDecider, { type: 'RevokeApiKey', keyId: revokedId, projectId: srv.bootstrap.projectId, now: now() }, ctx);

    expect((await owner.delete(`/v1/iam/roles/${roleId}`)).status).toBe(204);
    // The crashed requests, had they gone on, lose to the delete on their own streams.
    await expect(issue(keyId, roleId, keyGrant)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/deleted/) });
    await expect(
      handleCommand(srv.platform.events, membershipStream(srv.bootstrap.projectId), membershipDecider, { type: 'AddMember', memberId, projectId: srv.bootstrap.projectId, scope: 'project', email: `crashed@${profile}.example.com`, role: roleId, roleGrant: memberGrant, now: now() }, ctx),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await unrevokedKeysWith(roleId)).toEqual([]);
  });

  it('counts the holders of a role from before holds were recorded: granted by events alone, they keep it in use until revoked', async () => {
    // A role and a key as the previous version wrote them: no holdsRecorded, no RoleGranted, no roleGrant.
    const roleId = uuidv7();
    await srv.platform.events.append(customRolesStream(srv.bootstrap.projectId), [{ id: uuidv7(), type: 'identity.RoleCreated.v1', data: { roleId, projectId: srv.bootstrap.projectId, name: `Old ${profile}`, description: null, permissions: ['*:read'], createdAt: now() }, metadata: { schemaVersion: 1 } }], { expectedRevision: 'any' });
    const keyId = uuidv7();
    await issue(keyId, roleId);
    expect((await owner.delete(`/v1/iam/roles/${roleId}`)).status).toBe(409);
    expect((await owner.delete(`/v1/api-keys/${keyId}`)).status).toBe(204);
    expect((await owner.delete(`/v1/iam/roles/${roleId}`)).status).toBe(204);
  });

  it('releases the role when a holder changes role, and refuses a grant of a deleted role (400)', async () => {
    const role = await owner.post('/v1/iam/roles', { name: `Changing ${profile}`, permissions: ['*:read'] });
    const roleId: string = role.body.data.id;
    const member = await owner.post('/v1/iam/members', { email: `change@${profile}.example.com`, role: roleId });
    expect(member.status).toBe(201);
    expect((await owner.delete(`/v1/iam/roles/${roleId}`)).status).toBe(409);
    expect((await owner.patch(`/v1/iam/members/${member.body.data.id}`, { role: 'viewer' })).status).toBe(200);
    expect((await owner.delete(`/v1/iam/roles/${roleId}`)).status).toBe(204);
    expect((await owner.patch(`/v1/iam/members/${member.body.data.id}`, { role: roleId })).status).toBe(400);
    expect((await owner.post('/v1/iam/members', { email: `late@${profile}.example.com`, role: roleId })).status).toBe(400);
  });
});
