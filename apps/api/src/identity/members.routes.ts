import { Controller, Req, type Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PROJECT_MEMBER_ROLES, WORKSPACE_MEMBER_ROLES, type MemberScope } from '../../../../libs/domain/identity/membership';
import { INVITATION, MEMBER } from '../../../../libs/domain/identity/member.fields';
import { type Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type ApiRouteOptions, type ParsedRequest } from '../../../../libs/http/src/route';
import { INVITES_LIST, MEMBERS_LIST, type MemberDoc } from '../../../../projections/members/members.projection';
import { BusController } from '../common/bus-controller';
import { pathId, projectIdOf } from '../common/resource-lifecycle';
import { AcceptInvitation, ChangeMembership, GetMember, ListMembers, type MembershipChange } from '../../../../usecases/identity/members.handlers';
import { commandContext, granteeOf } from './request-context';
import { listOf } from '../../../../libs/http/src/list-query';

const TYPE = 'members';
const INVITES = 'invitations';
const email = z.email().max(254).describe('Validated and compared case-insensitively; an existing one is 409 CONFLICT');
const customRoleId = z.uuid().describe('The id of a custom role of the project');
const roleOf = (names: readonly [string, ...string[]]) => z.union([z.enum(names), customRoleId]);

const invitationAttributes = INVITATION.attributes.extend({ expired: z.boolean() });

const memberResource = (d: MemberDoc) => ({ id: d.id, type: TYPE, attributes: MEMBER.attributesOf(d) });
const memberDocument = (d: MemberDoc) => resource(TYPE, d.id, MEMBER.attributesOf(d));
/** `expired`: derived at read time, against the clock the query read with. */
const invitationResource = (now: number) => (d: MemberDoc) => ({ id: d.id, type: INVITES, attributes: { ...INVITATION.attributesOf(d), expired: !!d.expiresAt && Date.parse(d.expiresAt) <= now } });

const projectParam = z.object({ projectId: pathId });

/** `{projectId}` in a path must be the caller's own project: anything else is 404 (DECISIONS 15). */
function ownProject(principal: Principal, params: unknown): string {
  const projectId = projectIdOf(principal);
  const named = (params as { projectId?: string } | undefined)?.projectId;
  if (named !== undefined && named !== projectId) throw notFound('Project not found');
  return projectId;
}

/** One view of the membership (DECISIONS 15: the views share one registry). */
interface MemberView {
  controller: string;
  path: string;
  idParam: string;
  scope: MemberScope;
  resource: 'members' | 'workspaces';
  ops: readonly ('list' | 'create' | 'get' | 'update' | 'delete')[];
  summary: string;
}

type Op = MemberView['ops'][number];

function memberViewController(view: MemberView): Type<unknown> {
  // A custom role is one project's; workspace members act in every project of the workspace, so they
  // take the built-in workspace roles (DECISIONS 15: owner, admin, member, viewer).
  const roleField = (): z.ZodType<string> => (view.scope === 'workspace' ? z.enum(WORKSPACE_MEMBER_ROLES) : roleOf(PROJECT_MEMBER_ROLES));
  const hasProject = view.path.includes('{projectId}');
  const params = hasProject ? projectParam.extend({ [view.idParam]: pathId }) : z.object({ [view.idParam]: pathId });
  const common = { tag: 'Identity', auth: 'project' as const };
  const item = `${view.path}/{${view.idParam}}`;
  const idOf = (p: ParsedRequest) => (p.params as Record<string, string>)[view.idParam];

  @Controller()
  class MemberViewController extends BusController {
    async list(principal: Principal, p: ParsedRequest) {
      const { items, total } = await this.queries.execute(new ListMembers(ownProject(principal, p.params), view.scope, ['invited', 'active'], p.list!));
      return listResult(items.map(memberResource), total);
    }

    async get(principal: Principal, p: ParsedRequest) {
      return memberDocument(await this.queries.execute(new GetMember(ownProject(principal, p.params), view.scope, idOf(p))));
    }

    async create(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const body = p.body as { email: string; role: string };
      return this.write(req, principal, p, { type: 'AddMember', scope: view.scope, email: body.email, role: body.role });
    }

    async update(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      return this.write(req, principal, p, { type: 'ChangeMemberRole', scope: view.scope, memberId: idOf(p), role: (p.body as { role: string }).role });
    }

    async delete(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      await this.write(req, principal, p, { type: 'RemoveMember', scope: view.scope, memberId: idOf(p) });
    }

    private async write(req: FastifyRequest, principal: Principal, p: ParsedRequest, change: MembershipChange) {
      const doc = await this.commands.execute(new ChangeMembership(ownProject(principal, p.params), change, granteeOf(principal), commandContext(req, principal)));
      return doc ? memberDocument(doc) : undefined;
    }
  }
  Object.defineProperty(MemberViewController, 'name', { value: view.controller });

  const proto = MemberViewController.prototype as unknown as Record<Op, unknown>;
  const declare = (op: Op, options: ApiRouteOptions, args: Array<'req' | 'principal' | 'parsed'>) => {
    if (!view.ops.includes(op)) return;
    const descriptor = Object.getOwnPropertyDescriptor(proto, op)!;
    args.forEach((a, i) => (a === 'req' ? Req() : a === 'principal' ? CurrentPrincipal() : Parsed())(proto, op, i));
    ApiRoute(options)(proto, op, descriptor);
  };
  const [read, write] = [`${view.resource}:read`, `${view.resource}:write`];
  const one = resourceSchema(TYPE, MEMBER.attributes);
  const roleRule = 'Never above the caller’s own role (403); the only owner cannot be demoted (409 INVALID_STATE).';
  declare('list', { ...common, method: 'GET', path: view.path, ...(hasProject ? { params: projectParam } : {}), summary: `List ${view.summary} (invited and active)`, permission: read, list: listOf(TYPE, MEMBERS_LIST), responses: { 200: collectionSchema(TYPE, MEMBER.attributes) } }, ['principal', 'parsed']);
  declare('get', { ...common, method: 'GET', path: item, params, summary: `Get one of ${view.summary}`, permission: read, responses: { 200: one } }, ['principal', 'parsed']);
  declare('create', { ...common, method: 'POST', path: view.path, summary: `Add to ${view.summary} (active at once)`, description: roleRule, permission: write, type: TYPE, idempotent: true, body: z.object({ email, role: roleField().default(view.scope === 'workspace' ? 'member' : 'developer') }), responses: { 201: one } }, ['req', 'principal', 'parsed']);
  declare('update', { ...common, method: 'PATCH', path: item, params, summary: `Change the role of one of ${view.summary}`, description: roleRule, permission: write, type: TYPE, body: z.object({ role: roleField() }), responses: { 200: one } }, ['req', 'principal', 'parsed']);
  declare('delete', { ...common, method: 'DELETE', path: item, params, summary: `Remove one of ${view.summary}`, description: 'The only owner cannot be removed (409 INVALID_STATE); an admin cannot remove an owner (403).', permission: write, responses: { 204: null } }, ['req', 'principal', 'parsed']);
  return MemberViewController;
}

const PROJECT_MEMBERS = "the project's members";
export const MEMBER_VIEW_CONTROLLERS = [
  memberViewController({ controller: 'TeamMembersController', path: '/v1/iam/team/members', idParam: 'memberId', scope: 'project', resource: 'members', ops: ['list', 'create', 'update', 'delete'], summary: PROJECT_MEMBERS }),
  memberViewController({ controller: 'IamMembersController', path: '/v1/iam/members', idParam: 'id', scope: 'project', resource: 'members', ops: ['list', 'create', 'get', 'update', 'delete'], summary: PROJECT_MEMBERS }),
  memberViewController({ controller: 'ProjectMembersController', path: '/v1/projects/{projectId}/members', idParam: 'memberId', scope: 'project', resource: 'members', ops: ['list', 'update', 'delete'], summary: PROJECT_MEMBERS }),
  memberViewController({ controller: 'WorkspaceMembersController', path: '/v1/workspaces/members', idParam: 'id', scope: 'workspace', resource: 'workspaces', ops: ['list', 'create', 'update', 'delete'], summary: "the workspace's members" }),
];

// ---------------------------------------------------------------- invitations
const invitesPath = '/v1/projects/{projectId}/invites';
const inviteParams = projectParam.extend({ inviteId: pathId });
const inviteCommon = { tag: 'Identity', auth: 'project', params: projectParam } as const;
const listInvites = route({
  ...inviteCommon,
  method: 'GET',
  path: invitesPath,
  summary: "List the project's pending invitations",
  permission: 'invitations:read',
  list: listOf(INVITES, INVITES_LIST),
  responses: { 200: collectionSchema(INVITES, invitationAttributes) },
});
const createInvite = route({
  ...inviteCommon,
  method: 'POST',
  path: invitesPath,
  summary: 'Invite someone by email: a one-time link, valid 7 days, is mailed to them',
  description: 'Roles: owner, admin, member (default; acts as developer), viewer, or a custom role id; never above the caller’s own (403).',
  permission: 'invitations:write',
  type: INVITES,
  idempotent: true,
  body: z.object({ email, role: roleOf(WORKSPACE_MEMBER_ROLES).default('member') }),
  responses: { 201: resourceSchema(INVITES, invitationAttributes) },
});
const resendInvite = route({
  ...inviteCommon,
  method: 'POST',
  path: `${invitesPath}/{inviteId}/resend`,
  params: inviteParams,
  summary: 'Send the invitation email again (at most once a minute: 429 RESEND_TOO_SOON); the link is good for 7 more days',
  permission: 'invitations:write',
  idempotent: true,
  responses: { 200: resourceSchema(INVITES, invitationAttributes) },
  errorNotes: { 429: 'RESEND_TOO_SOON: the invitation was sent less than a minute ago (DECISIONS 15); `Retry-After` (and `meta.retryAfter`) gives the seconds to wait' },
});
const cancelInvite = route({
  ...inviteCommon,
  method: 'DELETE',
  path: `${invitesPath}/{inviteId}`,
  params: inviteParams,
  summary: 'Cancel an invitation: its link stops working',
  permission: 'invitations:write',
  responses: { 204: null },
});
const acceptInvite = route({
  method: 'POST',
  path: '/v1/invites/{token}/accept',
  summary: 'Accept an invitation with the token of its link: the invitee becomes an active member',
  description: 'Needs no credential (the token is one). An unknown, used or cancelled link is 404; an expired one 409 INVALID_STATE.',
  tag: 'Identity',
  auth: 'none',
  params: z.object({ token: z.string().min(1).max(1024) }),
  responses: { 200: resourceSchema(TYPE, MEMBER.attributes) },
});

@Controller()
export class InvitationsController extends BusController {
  @ApiRoute(listInvites)
  async list(@CurrentPrincipal() principal: Principal, @Parsed() p: ParsedRequest) {
    const { items, total, now } = await this.queries.execute(new ListMembers(ownProject(principal, p.params), 'project', ['invited'], p.list!));
    return listResult(items.map(invitationResource(now)), total);
  }

  @ApiRoute(createInvite)
  create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() p: ParsedRequest) {
    const body = p.body as { email: string; role: string };
    return this.write(req, principal, p, { type: 'InviteMember', email: body.email, role: body.role });
  }

  @ApiRoute(resendInvite)
  resend(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() p: ParsedRequest) {
    return this.write(req, principal, p, { type: 'ResendInvitation', memberId: (p.params as { inviteId: string }).inviteId });
  }

  @ApiRoute(cancelInvite)
  async cancel(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() p: ParsedRequest) {
    await this.write(req, principal, p, { type: 'CancelInvitation', memberId: (p.params as { inviteId: string }).inviteId });
  }

  @ApiRoute(acceptInvite)
  async accept(@Req() req: FastifyRequest, @Parsed('params') params: { token: string }) {
    return memberDocument(await this.commands.execute(new AcceptInvitation(params.token, commandContext(req, null))));
  }

  private async write(req: FastifyRequest, principal: Principal, p: ParsedRequest, change: MembershipChange) {
    const doc = await this.commands.execute(new ChangeMembership(ownProject(principal, p.params), change, granteeOf(principal), commandContext(req, principal)));
    if (!doc) return undefined;
    // Just invited or resent: good for 7 days from now.
    const r = invitationResource(Number.NEGATIVE_INFINITY)(doc);
    return resource(r.type, r.id, r.attributes);
  }
}
