import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { modeOfKey, principalMode, principalProjectId, type Principal } from '../../../../libs/http/src/auth';
import { resource, resourceSchema, collectionSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { API_KEYS_LIST, type ApiKeyDoc } from '../../../../projections/api-keys/api-keys.projection';
import { IssueApiKey, ListApiKeys, RevokeApiKey } from '../../../../usecases/identity/identity.handlers';
import { commandContext, granteeOf } from './request-context';
import { pathId } from '../common/resource-lifecycle';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

const roles = ['owner', 'admin', 'developer', 'viewer'] as const;

export const apiKeyAttributes = z.object({
  name: z.string(),
  prefix: z.string().describe('First 12 characters of the key'),
  role: z.string().describe('A built-in role, or the id of the custom role the key acts with'),
  expiresAt: z.string().nullable(),
  revoked: z.boolean(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  mode: z.enum(['live', 'test']).describe('live (svc_live_ key) or test (svc_test_ key; DECISIONS 21)'),
});

const createBody = z.object({
  name: z.string().min(1).max(64),
  expiresAt: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; must be in the future'),
  role: z.union([z.enum(roles), z.uuid().describe('The id of a custom role of the project')]).optional().describe('Role the key acts with (default admin): a built-in role or a custom role id'),
  mode: z.enum(['live', 'test']).optional().describe("live (a svc_live_ key) or test (a svc_test_ key); default: the creating credential's mode (a signed-in member's is live)"),
  environment: z.enum(['live', 'test']).optional().describe('Deprecated alias of `mode` (earlier clients); `mode` wins when both are sent'),
});

const idParams = z.object({ id: pathId });

export function apiKeyResource(doc: ApiKeyDoc, extra: Record<string, unknown> = {}) {
  return {
    id: doc.id,
    type: 'api-keys',
    attributes: {
      name: doc.name,
      prefix: doc.prefix,
      role: doc.customRoleId ?? doc.role,
      expiresAt: doc.expiresAt,
      revoked: doc.revoked,
      createdAt: doc.createdAt,
      lastUsedAt: doc.lastUsedAt,
      mode: modeOfKey(doc.prefix),
      ...extra,
    },
  };
}

const projectOf = (p: Principal) => principalProjectId(p) ?? '';

const listRoute = route({
  method: 'GET',
  path: '/v1/api-keys',
  summary: 'List the project API keys (revoked ones included, with revoked: true)',
  tag: 'Identity',
  auth: 'project',
  permission: 'api-keys:read',
  list: listOf('api-keys', API_KEYS_LIST),
  query: z.object({ revoked: z.enum(['true', 'false']).optional() }),
  responses: { 200: collectionSchema('api-keys', apiKeyAttributes) },
});
const createRoute = route({
  method: 'POST',
  path: '/v1/api-keys',
  summary: 'Create a project API key; the full key is in this response only',
  description: "The key acts with `role` (default admin), never above the creating credential's own role: 403 FORBIDDEN (an admin cannot create an owner key).",
  tag: 'Identity',
  auth: 'project',
  permission: 'api-keys:write',
  type: 'api-keys',
  body: createBody,
  idempotent: true,
  responses: { 201: resourceSchema('api-keys', apiKeyAttributes.extend({ key: z.string() })) },
});
const revokeRoute = route({
  method: 'DELETE',
  path: '/v1/api-keys/{id}',
  summary: 'Revoke an API key immediately and permanently',
  description: "A key that is already revoked answers 404. A key whose role is above the revoking credential's own: 403 FORBIDDEN.",
  tag: 'Identity',
  auth: 'project',
  permission: 'api-keys:write',
  params: idParams,
  responses: { 204: null },
});

@Controller()
export class ApiKeysController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListApiKeys(projectOf(principal), list));
    return listResult(items.map((d) => apiKeyResource(d)), total);
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const role = body.role ?? 'admin';
    const custom = (roles as readonly string[]).includes(role) ? {} : { customRoleId: role };
    const input = { projectId: projectOf(principal), name: body.name, role: custom.customRoleId ? 'viewer' : (role as (typeof roles)[number]), ...custom, expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null, mode: body.mode ?? body.environment ?? principalMode(principal) } as const;
    const issued = await this.commands.execute(new IssueApiKey(input, commandContext(req, principal), granteeOf(principal)));
    // A retry of a create whose answer a crash lost gets the key it issued, but not its secret: only an
    // HMAC of it was ever stored (revoke it and create another; DECISIONS 11).
    if (issued.key === null) return resource('api-keys', issued.doc.id, apiKeyResource(issued.doc).attributes, { meta: { key: 'Not shown: the answer that carried this key was lost in an outage, and the key is not stored. Revoke it and create another.' } });
    const r = apiKeyResource(issued.doc, { key: issued.key });
    return resource(r.type, r.id, r.attributes);
  }

  @ApiRoute(revokeRoute)
  async revoke(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof revokeRoute>['params']) {
    await this.commands.execute(new RevokeApiKey(projectOf(principal), params.id, commandContext(req, principal), granteeOf(principal)));
  }
}
