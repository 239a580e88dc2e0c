import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startIdentityProvider, type IdentityProvider } from '../support/jwks';
import { ManualClock } from '../../libs/runtime/src/clock';
import { invitationToken } from '../../libs/domain/identity/invitation-token';
import { client } from '../support/http-client';
import { startSmtpSink, type SmtpSink } from '../support/smtp';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';
import { readTopicUntil } from '../support/kafka';
import { requireEngine } from '../engines';
import type { ParsedMail } from 'mailparser';

/** Members, invitations, workspaces, custom roles and provider API keys (spec 4.11, DECISIONS 15). */

const ISSUER = 'https://idp.members.test/';
const DAY = 24 * 3600_000;
type Api = ReturnType<TestServer['as']>;

let idp: IdentityProvider;

beforeAll(async () => {
  idp = await startIdentityProvider(ISSUER, 'members');
});
afterAll(() => idp.cleanup());

const TOKEN_IN_MAIL = /\/v1\/invites\/(inv\.[A-Za-z0-9_.-]+)\/accept/;
const mailTo = (address: string) => (m: ParsedMail) => m.to !== undefined && JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase());
const tokenOf = (m: ParsedMail) => TOKEN_IN_MAIL.exec(m.text ?? '')![1];

describe.each<Profile>(['embedded', 'server'])('members, invitations, roles and provider keys (%s profile)', (profile) => {
  const clock = new ManualClock();
  let srv: TestServer;
  let smtp: SmtpSink;
  let owner: Api;
  let other: Api;
  let projectId: string;
  let otherProjectId: string;

  /** A JWT the identity provider would issue: its role claim says admin, but the registry decides. */
  async function jwt(sub: string, email: string, claims: Record<string, unknown> = {}): Promise<string> {
    return idp.sign(sub, { project: projectId, role: 'admin', email, ...claims }, Math.floor(clock.now() / 1000));
  }
  const asMember = (token: string) => client(srv.url, { Authorization: `Bearer ${token}` });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    srv = await startTestServer(profile, { SMTP_URL: smtp.url, JWT_ISSUER: ISSUER, JWT_JWKS_FILE: idp.jwksFile, JWT_CLOCK_TOLERANCE_S: '0', PUBLIC_URL: 'https://cloud.example.test' }, { clock });
    owner = srv.as(srv.bootstrap.apiKey);
    projectId = srv.bootstrap.projectId;
    const project = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `members-other-${profile}` });
    expect(project.status).toBe(201);
    otherProjectId = project.body.data.id;
    other = srv.as(project.body.included[0].attributes.key);
  });
  afterAll(async () => {
    await srv?.stop();
    await smtp?.close();
  });

  it('invites by email through the SMTP server; the link accepts once and the member then acts through a JWT with the registry role', async () => {
    const invited = await owner.post(`/v1/projects/${projectId}/invites`, { email: 'Bob@Example.com' });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ type: 'invitations', attributes: { email: 'Bob@Example.com', role: 'member', status: 'invited', expired: false } });
    const inviteId = invited.body.data.id;

    const mail = await smtp.waitFor(mailTo('bob@example.com'));
    expect(mail.messageId).toMatch(/@invitations\.cloud\.invalid>?$/);
    expect(mail.text).toContain('https://cloud.example.test/v1/invites/');
    const token = tokenOf(mail);
    const secret = token.split('.')[3];
    const listed = await owner.get(`/v1/projects/${projectId}/invites`);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toContain(inviteId);
    expect(listed.body.meta).toMatchObject({ page: 1, total: 1 });

    // Not a member yet: the registry refuses the token whatever its role claim says.
    const bobJwt = await jwt('idp|bob', 'bob@EXAMPLE.com');
    expect((await asMember(bobJwt).get('/v1/iam/members')).status).toBe(401);

    const accepted = await srv.anonymous.post(`/v1/invites/${token}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ id: inviteId, type: 'members', attributes: { email: 'Bob@Example.com', role: 'member', status: 'active' } });
    expect((await srv.anonymous.post(`/v1/invites/${token}/accept`)).status).toBe(404);
    expect((await srv.anonymous.post(`/v1/invites/${token.slice(0, -2)}ff/accept`)).status).toBe(404);

    // `member` acts as developer: reads members and writes resources, manages no member (the claim said admin).
    const members = await asMember(bobJwt).get('/v1/iam/members');
    expect(members.status).toBe(200);
    // An address the identity provider has not verified finds no member.
    expect((await asMember(await jwt('idp|mallory', 'bob@example.com', { email_verified: false })).get('/v1/iam/members')).status).toBe(401);
    expect(members.body.data.find((m: { id: string }) => m.id === inviteId).attributes.status).toBe('active');
    const ticket = await asMember(bobJwt).post('/v1/support', { subject: 'hi', message: 'from bob' });
    expect(ticket.status).toBe(201);
    // A member's messages carry the member's address as both name and email (DECISIONS 17), never null.
    const author = ticket.body.data.attributes.author;
    expect([author.name.toLowerCase(), author.email.toLowerCase(), author.isSupport]).toEqual(['bob@example.com', 'bob@example.com', false]);
    const refused = await asMember(bobJwt).post('/v1/iam/members', { email: 'eve@example.com', role: 'viewer' });
    expect(refused.status).toBe(403);
    expect((await owner.get(`/v1/projects/${projectId}/invites`)).body.meta.total).toBe(0);

    // The mail was recorded once, and the link's secret is in no event and no log line.
    const events = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
    expect(events.filter((e) => e.type === 'identity.InvitationEmailSent.v1' && (e.data as { memberId: string }).memberId === inviteId)).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(srv.logs()).not.toContain(secret);
    expect(srv.logs()).toContain('/v1/invites/[REDACTED]/accept');

    // Removed: the same token is refused at once.
    expect((await owner.delete(`/v1/iam/members/${inviteId}`)).status).toBe(204);
    expect((await asMember(bobJwt).get('/v1/iam/members')).status).toBe(401);
    expect((await owner.get(`/v1/iam/members/${inviteId}`)).status).toBe(404);
  });

  it('expires an invitation after 7 days (clock), resends at most once a minute (429) with a renewed link, and cancels', async () => {
    const invited = await owner.post(`/v1/projects/${projectId}/invites`, { email: 'carol@example.com', role: 'viewer' });
    expect(invited.status).toBe(201);
    const id = invited.body.data.id;
    const first = await smtp.waitFor(mailTo('carol@example.com'));
    const tooSoon = await owner.post(`/v1/projects/${projectId}/invites/${id}/resend`);
    expect(tooSoon.status).toBe(429);
    // A code of its own (DECISIONS 15), so that a client does not take it for the key's rate limit.
    expect(tooSoon.body.errors[0].code).toBe('RESEND_TOO_SOON');
    expect(Number(tooSoon.headers['retry-after'])).toBe(tooSoon.body.meta.retryAfter);
    expect(tooSoon.body.meta.retryAfter).toBeGreaterThan(0);
    expect(tooSoon.body.meta.retryAfter).toBeLessThanOrEqual(60);
    const documented = (await srv.anonymous.get('/v1/openapi.json')).body.paths['/v1/projects/{projectId}/invites/{inviteId}/resend'].post.responses['429'];
    expect(documented.description).toMatch(/RESEND_TOO_SOON/);
    expect(documented.headers).toHaveProperty('Retry-After');

    clock.advance(7 * DAY + 1000);
    const expired = await srv.anonymous.post(`/v1/invites/${tokenOf(first)}/accept`);
    expect(expired.status).toBe(409);
    expect(expired.body.errors[0]).toMatchObject({ code: 'INVALID_STATE', detail: expect.stringMatching(/expired/) });
    const listed = await owner.get(`/v1/projects/${projectId}/invites`);
    expect(listed.body.data.find((i: { id: string }) => i.id === id).attributes.expired).toBe(true);

    const resent = await owner.post(`/v1/projects/${projectId}/invites/${id}/resend`);
    expect(resent.status).toBe(200);
    expect(Date.parse(resent.body.data.attributes.expiresAt)).toBeGreaterThan(clock.now() + 7 * DAY - 60_000);
    const second = await smtp.waitFor((m) => mailTo('carol@example.com')(m) && m.messageId !== first.messageId);
    const again = await owner.post(`/v1/projects/${projectId}/invites/${id}/resend`);
    expect([again.status, again.body.errors[0].code]).toEqual([429, 'RESEND_TOO_SOON']);
    expect((await srv.anonymous.post(`/v1/invites/${tokenOf(second)}/accept`)).status).toBe(200);

    const dave = await owner.post(`/v1/projects/${projectId}/invites`, { email: 'dave@example.com' });
    const daveMail = await smtp.waitFor(mailTo('dave@example.com'));
    expect((await owner.delete(`/v1/projects/${projectId}/invites/${dave.body.data.id}`)).status).toBe(204);
    expect((await srv.anonymous.post(`/v1/invites/${tokenOf(daveMail)}/accept`)).status).toBe(404);
    expect((await owner.delete(`/v1/projects/${projectId}/invites/${dave.body.data.id}`)).status).toBe(404);
    expect((await owner.post(`/v1/projects/${projectId}/invites/${dave.body.data.id}/resend`)).status).toBe(404);
  });

  it('keeps emails unique case-insensitively (409), validates them (400), and never removes or demotes the only owner (409)', async () => {
    const ann = await owner.post('/v1/iam/team/members', { email: 'Ann@Example.com', role: 'owner' });
    expect(ann.status).toBe(201);
    expect(ann.body.data.attributes).toMatchObject({ role: 'owner', status: 'active' });
    const annId = ann.body.data.id;
    const dup = await owner.post('/v1/iam/members', { email: 'ann@EXAMPLE.com', role: 'viewer' });
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].code).toBe('CONFLICT');
    expect((await owner.post(`/v1/projects/${projectId}/invites`, { email: 'ANN@example.com' })).status).toBe(409);
    // Two racing adds of one address: the one stream orders them, the second is 409.
    const racing = await Promise.all([owner.post('/v1/iam/members', { email: 'race@example.com', role: 'viewer' }), owner.post(`/v1/projects/${projectId}/invites`, { email: 'RACE@example.com' })]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await owner.post('/v1/iam/members', { email: 'not-an-email', role: 'viewer' })).status).toBe(400);
    expect((await owner.post('/v1/iam/members', { email: 'x@example.com', role: 'member' })).status).toBe(400);

    for (const res of [await owner.delete(`/v1/iam/team/members/${annId}`), await owner.patch(`/v1/projects/${projectId}/members/${annId}`, { role: 'admin' })]) {
      expect(res.status).toBe(409);
      expect(res.body.errors[0].code).toBe('INVALID_STATE');
    }
    // An admin key neither adds nor removes an owner (DECISIONS 3).
    const adminKey = (await owner.post('/v1/api-keys', { name: 'admin', role: 'admin' })).body.data.attributes.key;
    expect((await srv.as(adminKey).post('/v1/iam/members', { email: 'zed@example.com', role: 'owner' })).status).toBe(403);
    expect((await srv.as(adminKey).delete(`/v1/iam/members/${annId}`)).status).toBe(403);

    const ben = await owner.post('/v1/iam/members', { email: 'ben@example.com', role: 'owner' });
    const demoted = await owner.patch(`/v1/iam/team/members/${annId}`, { role: 'admin' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.data.attributes.role).toBe('admin');
    expect((await owner.delete(`/v1/iam/members/${ben.body.data.id}`)).status).toBe(409);
    const views = await Promise.all([owner.get('/v1/iam/team/members'), owner.get('/v1/iam/members?sort=email'), owner.get(`/v1/projects/${projectId}/members`)]);
    for (const v of views) {
      expect(v.status).toBe(200);
      expect(v.body.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining([annId, ben.body.data.id]));
    }
    expect(views[1].body.data.map((m: { attributes: { email: string } }) => m.attributes.email)).toEqual([...views[1].body.data.map((m: { attributes: { email: string } }) => m.attributes.email)].sort());

    // Sorted by status both ways (DECISIONS 13: `status` where the resource has one), invited and active alike.
    expect((await owner.post(`/v1/projects/${projectId}/invites`, { email: 'sorted@example.com' })).status).toBe(201);
    const statuses = async (sort: string) => {
      const res = await owner.get(`/v1/iam/members?sort=${sort}&limit=100`);
      expect(res.status).toBe(200);
      return res.body.data.map((m: { attributes: { status: string } }) => m.attributes.status) as string[];
    };
    const up = await statuses('status');
    expect(new Set(up)).toEqual(new Set(['active', 'invited']));
    expect(up).toEqual([...up].sort());
    expect(await statuses('-status')).toEqual([...up].sort().reverse());
    const invites = await owner.get(`/v1/projects/${projectId}/invites?sort=-status`);
    expect(invites.status).toBe(200);
    expect(invites.body.data.map((m: { attributes: { email: string } }) => m.attributes.email)).toContain('sorted@example.com');
  });

  it('keeps workspace members apart, with roles owner/admin/member/viewer (default member)', async () => {
    const w = await owner.post('/v1/workspaces/members', { email: 'wanda@example.com' });
    expect(w.status).toBe(201);
    expect(w.body.data.attributes.role).toBe('member');
    expect((await owner.post('/v1/workspaces/members', { email: 'walt@example.com', role: 'developer' })).status).toBe(400);
    expect((await owner.get('/v1/workspaces/members')).body.data.map((m: { id: string }) => m.id)).toEqual([w.body.data.id]);
    expect((await owner.get(`/v1/iam/members/${w.body.data.id}`)).status).toBe(404);
    expect((await owner.patch(`/v1/workspaces/members/${w.body.data.id}`, { role: 'viewer' })).body.data.attributes.role).toBe('viewer');
    const wandaJwt = await jwt('idp|wanda', 'Wanda@example.com');
    expect((await asMember(wandaJwt).get('/v1/instances')).status).toBe(200);
    expect((await asMember(wandaJwt).post('/v1/support', { subject: 's', message: 'm' })).status).toBe(403);
  });

  it('lists built-in roles with their permissions (immutable: 409) and manages custom roles by the catalogue and the creator’s own permissions', async () => {
    const roles = await owner.get('/v1/iam/roles');
    expect(roles.status).toBe(200);
    const viewer = roles.body.data.find((r: { id: string }) => r.id === 'viewer');
    expect(viewer.attributes).toMatchObject({ builtIn: true });
    expect(viewer.attributes.permissions).toContain('instances:read');
    expect(viewer.attributes.permissions).not.toContain('instances:write');
    expect((await owner.patch('/v1/iam/roles/admin', { permissions: ['*:read'] })).status).toBe(409);
    expect((await owner.delete('/v1/iam/roles/owner')).body.errors[0].code).toBe('INVALID_STATE');

    const bad = await owner.post('/v1/iam/roles', { name: 'Bad', permissions: ['instances:read', 'nope:read', 'instances:delete'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer)).toEqual(expect.arrayContaining([expect.stringMatching(/permissions\/1$/), expect.stringMatching(/permissions\/2$/)]));

    const ops = await owner.post('/v1/iam/roles', { name: 'Ops', permissions: ['instances:*', '*:read', 'roles:write'] });
    expect(ops.status).toBe(201);
    expect(ops.body.data.attributes).toMatchObject({ name: 'Ops', builtIn: false, permissions: ['*:read', 'instances:*', 'roles:write'] });
    const opsId = ops.body.data.id;
    expect((await owner.post('/v1/iam/roles', { name: 'ops', permissions: ['*:read'] })).status).toBe(409);
    expect((await owner.patch(`/v1/iam/roles/${opsId}`, { permissions: ['instances:*', '*:read', 'roles:write', 'support:write'] })).body.data.attributes.permissions).toContain('support:write');

    // A member with the custom role is judged by its list alone.
    const olga = await owner.post('/v1/iam/members', { email: 'olga@example.com', role: opsId });
    expect(olga.status).toBe(201);
    const olgaJwt = await jwt('idp|olga', 'olga@example.com');
    expect((await asMember(olgaJwt).get('/v1/instances')).status).toBe(200);
    expect((await asMember(olgaJwt).post('/v1/api-keys', { name: 'no' })).status).toBe(403);
    // It may create roles, but only with what it holds itself.
    expect((await asMember(olgaJwt).post('/v1/iam/roles', { name: 'Keys', permissions: ['api-keys:write'] })).status).toBe(403);
    const readers = await asMember(olgaJwt).post('/v1/iam/roles', { name: 'Readers', permissions: ['*:read'] });
    expect(readers.status).toBe(201);

    // An API key with the custom role, too.
    const key = await owner.post('/v1/api-keys', { name: 'ops-key', role: opsId });
    expect(key.status).toBe(201);
    expect(key.body.data.attributes.role).toBe(opsId);
    const opsKey = srv.as(key.body.data.attributes.key);
    expect((await opsKey.post('/v1/support', { subject: 'from ops', message: 'support:write was added' })).status).toBe(201);
    expect((await opsKey.get('/v1/instances')).status).toBe(200);
    expect((await opsKey.post('/v1/api-keys', { name: 'no' })).status).toBe(403);
    expect((await owner.post('/v1/api-keys', { name: 'x', role: '01a20c12-0000-7000-8000-000000000000' })).status).toBe(400);

    const inUse = await owner.delete(`/v1/iam/roles/${opsId}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.errors[0].code).toBe('CONFLICT');
    expect((await owner.delete(`/v1/iam/members/${olga.body.data.id}`)).status).toBe(204);
    expect((await owner.delete(`/v1/iam/roles/${opsId}`)).status).toBe(409);
    expect((await owner.delete(`/v1/api-keys/${key.body.data.id}`)).status).toBe(204);
    expect((await owner.delete(`/v1/iam/roles/${opsId}`)).status).toBe(204);
    expect((await owner.get(`/v1/iam/roles/${opsId}`)).status).toBe(404);
    const custom = await owner.get('/v1/iam/roles?builtIn=false&limit=1');
    expect(custom.body.meta).toMatchObject({ total: 1, limit: 1 });
  });

  it('answers 404 for another project’s members, invitations, roles and {projectId}', async () => {
    const m = await owner.post('/v1/iam/members', { email: 'mine@example.com', role: 'viewer' });
    const inv = await owner.post(`/v1/projects/${projectId}/invites`, { email: 'mine2@example.com' });
    const role = await owner.post('/v1/iam/roles', { name: 'Mine', permissions: ['*:read'] });
    for (const res of [
      await other.get(`/v1/iam/members/${m.body.data.id}`),
      await other.patch(`/v1/iam/members/${m.body.data.id}`, { role: 'admin' }),
      await other.delete(`/v1/iam/team/members/${m.body.data.id}`),
      await other.patch(`/v1/projects/${otherProjectId}/members/${m.body.data.id}`, { role: 'admin' }),
      await other.post(`/v1/projects/${otherProjectId}/invites/${inv.body.data.id}/resend`),
      await other.delete(`/v1/projects/${otherProjectId}/invites/${inv.body.data.id}`),
      await other.get(`/v1/iam/roles/${role.body.data.id}`),
      await other.patch(`/v1/iam/roles/${role.body.data.id}`, { permissions: ['*:read'] }),
      await other.delete(`/v1/iam/roles/${role.body.data.id}`),
      await other.get(`/v1/projects/${projectId}/members`),
      await other.get(`/v1/projects/${projectId}/invites`),
      await other.post(`/v1/projects/${projectId}/invites`, { email: 'x@example.com' }),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await other.post('/v1/iam/members', { email: 'x@example.com', role: role.body.data.id })).status).toBe(400);
    expect((await other.get('/v1/iam/members')).body.meta.total).toBe(0);
  });

  it('gives a provider API key’s secret once, at create and rotate, and never in events, logs or later answers', async () => {
    const provider = await owner.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-members-test' });
    expect(provider.status).toBe(201);
    const providerId = provider.body.data.id;
    expect((await owner.post('/v1/iam/api-keys', { name: 'ci', providerId: 'nope' })).status).toBe(404);
    expect((await other.post('/v1/iam/api-keys', { name: 'ci', providerId })).status).toBe(404);

    const created = await owner.post('/v1/iam/api-keys', { name: 'ci', providerId });
    expect(created.status).toBe(201);
    const { secret, ...shown } = created.body.data.attributes;
    expect(secret).toMatch(/^pk_[0-9A-Za-z]{40}$/);
    expect(shown).toMatchObject({ name: 'ci', providerId, prefix: secret.slice(0, 12), rotatedAt: null, lastUsedAt: null });
    const keyId = created.body.data.id;

    const rotated = await owner.post(`/v1/iam/api-keys/${keyId}/rotate`);
    expect(rotated.status).toBe(200);
    const next = rotated.body.data.attributes.secret;
    expect(next).not.toBe(secret);
    expect(rotated.body.data.attributes.prefix).toBe(next.slice(0, 12));
    expect(rotated.body.data.attributes.rotatedAt).not.toBeNull();

    const listed = await owner.get('/v1/iam/api-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([keyId]);
    expect(listed.body.data[0].attributes).not.toHaveProperty('secret');
    expect((await other.post(`/v1/iam/api-keys/${keyId}/rotate`)).status).toBe(404);
    expect((await other.delete(`/v1/iam/api-keys/${keyId}`)).status).toBe(404);

    const events = JSON.stringify(await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 }));
    expect(events).toContain('identity.ProviderKeyRotated.v1');
    for (const s of [secret, next]) {
      expect(events).not.toContain(s);
      expect(srv.logs()).not.toContain(s);
      expect(listed.text).not.toContain(s);
    }
    expect((await owner.delete(`/v1/iam/api-keys/${keyId}`)).status).toBe(204);
    expect((await owner.delete(`/v1/iam/api-keys/${keyId}`)).status).toBe(404);
    expect((await owner.post(`/v1/iam/api-keys/${keyId}/rotate`)).status).toBe(404);
    expect((await owner.get('/v1/iam/api-keys')).body.meta.total).toBe(0);
  });
});

describe.each<Profile>(['embedded', 'server'])('invitation mail across an SMTP outage and a restart (%s profile)', (profile) => {
  let smtp: SmtpSink;
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers.reverse()) await s.stop().catch(() => undefined);
    await smtp?.close();
  });

  it('loses no invitation while SMTP refuses and the server restarts, and sends none twice', async () => {
    smtp = await startSmtpSink();
    const first = await startTestServer(profile, { SMTP_URL: smtp.url });
    servers.push(first);
    const owner = first.as(first.bootstrap.apiKey);
    const projectId = first.bootstrap.projectId;
    expect((await owner.post(`/v1/projects/${projectId}/invites`, { email: 'early@example.com' })).status).toBe(201);
    await smtp.waitFor(mailTo('early@example.com'));

    smtp.failNext(1_000_000); // every delivery now gets a 451 (try again later)
    const late = await owner.post(`/v1/projects/${projectId}/invites`, { email: 'late@example.com' });
    expect(late.status).toBe(201);
    // Refused at least once before the restart: the outbox recorded a retryable failure of that mail.
    await eventually(
      async () => (await first.platform.events.readAll({ fromPosition: 0, maxCount: 100000 })).filter((e) => e.type === 'outbox.EffectFailedRetryable.v1'),
      (failed) => failed.some((e) => String(e.data.reason).includes('451')),
    );
    expect(smtp.messages.filter(mailTo('late@example.com'))).toHaveLength(0);
    await first.stop({ keepData: true });
    servers.pop();

    smtp.failNext(0);
    const second = await startTestServer(profile, first.env);
    servers.push(second);
    const mail = await smtp.waitFor(mailTo('late@example.com'));
    expect(tokenOf(mail)).toMatch(/^inv\./);
    const sent = await eventually(
      async () => (await second.platform.events.readAll({ fromPosition: 0, maxCount: 100000 })).filter((e) => e.type === 'identity.InvitationEmailSent.v1'),
      (events) => events.some((e) => (e.data as { memberId: string }).memberId === late.body.data.id),
    );
    expect(sent).toHaveLength(2);
    expect(smtp.messages.filter(mailTo('early@example.com'))).toHaveLength(1);
    expect(smtp.messages.filter(mailTo('late@example.com'))).toHaveLength(1);
    // The invites model follows the log on its own: the GET waits for it to have applied the records.
    const mails = async () => (await second.as(second.bootstrap.apiKey).get(`/v1/projects/${projectId}/invites?sort=email`)).body.data.map((i: { attributes: { mail: string } }) => i.attributes.mail);
    expect(await eventually(mails, (m) => m.every((x: string) => x === 'sent'))).toEqual(['sent', 'sent']);
  });
});

describe('identity events on cloud.identity.events.v1 carry no secret (server profile)', () => {
  let srv: TestServer;
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    srv = await startTestServer('server', { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await srv?.stop();
    await smtp?.close();
  });

  it('publishes membership, role and provider-key events keyed by their streams, without tokens, token hashes or key secrets', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const projectId = srv.bootstrap.projectId;
    const invite = await api.post(`/v1/projects/${projectId}/invites`, { email: 'topic@example.com' });
    expect(invite.status).toBe(201);
    const token = tokenOf(await smtp.waitFor(mailTo('topic@example.com')));
    expect((await api.post('/v1/iam/roles', { name: 'Topic', permissions: ['*:read'] })).status).toBe(201);
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-topic' })).body.data.id;
    const key = await api.post('/v1/iam/api-keys', { name: 'topic', providerId });
    const rotated = await api.post(`/v1/iam/api-keys/${key.body.data.id}/rotate`);
    expect(rotated.status).toBe(200);
    const keyStream = `providerkey-${key.body.data.id}`;
    const members = `member-${projectId}`;
    const log = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'identity', (l) =>
      // Streams are partitions apart: wait for each one's last event.
      (l.types.get(keyStream) ?? []).includes('identity.ProviderKeyRotated.v1') && (l.types.get(members) ?? []).includes('identity.InvitationEmailSent.v1') && l.types.has(`role-${projectId}`),
    );
    expect(log.types.get(members)).toEqual(['identity.MemberInvited.v1', 'identity.InvitationEmailSent.v1']);
    expect(log.types.get(`role-${projectId}`)).toEqual(['identity.RoleCreated.v1']);
    expect(log.types.get(keyStream)).toEqual(['identity.ProviderKeyCreated.v1', 'identity.ProviderKeyRotated.v1']);
    const carried = log.values.join('\n');
    const stored = await srv.platform.events.readStream(members);
    const tokenHash = (stored[0].data as { tokenHash: string }).tokenHash;
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    for (const secret of [token.split('.')[3], tokenHash, key.body.data.attributes.secret, rotated.body.data.attributes.secret]) expect(carried).not.toContain(secret);
  }, 90000);
});

describe('invitation mail without SMTP_URL (embedded default)', () => {
  let srv: TestServer;
  afterAll(async () => {
    await srv?.stop();
  });

  it('writes the mail to the log without the link’s secret, and the link still accepts', async () => {
    srv = await startTestServer('embedded');
    const projectId = srv.bootstrap.projectId;
    const invited = await srv.as(srv.bootstrap.apiKey).post(`/v1/projects/${projectId}/invites`, { email: 'logged@example.com', role: 'admin' });
    expect(invited.status).toBe(201);
    const line = await eventually(
      async () => srv.logs().split('\n').find((l) => l.includes('logged@example.com') && l.includes('SMTP_URL unset')),
      (l) => l !== undefined,
    );
    expect(line).toContain('<secret omitted>');
    // The link as the server derives it (the keyed hash of its pepper): it is nowhere in the log, and works.
    const pepper = JSON.parse(fs.readFileSync(path.join(srv.dataDir, 'secrets.json'), 'utf8')).apiKeyPepper as string;
    const token = invitationToken((t) => createHmac('sha256', pepper).update(t).digest('hex'), projectId, invited.body.data.id);
    expect(srv.logs()).not.toContain(token.split('.')[3]);
    const accepted = await srv.anonymous.post(`/v1/invites/${token}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.attributes).toMatchObject({ email: 'logged@example.com', role: 'admin', status: 'active' });
  });
});
