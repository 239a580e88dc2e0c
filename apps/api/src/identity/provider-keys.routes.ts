import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listOf } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { PROVIDER_KEYS_LIST, type ProviderKeyDoc } from '../../../../projections/provider-keys/provider-keys.projection';
import { ChangeProviderKey, CreateProviderKey, ListProviderKeys, type ProviderKeyAnswer } from '../../../../usecases/identity/provider-keys';
import { BusController } from '../common/bus-controller';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from './request-context';

// ---------------------------------------------------------------- routes
const TYPE = 'provider-api-keys';
const attributes = z.object({
  name: z.string(),
  providerId: z.string(),
  prefix: z.string().describe('First 12 characters of the secret'),
  createdAt: z.string(),
  rotatedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable().describe('Null until a provider integration uses the key'),
});
const withSecret = attributes.extend({ secret: z.string().describe('Shown in this response only; kept in the credential vault') });
const keyParams = z.object({ keyId: pathId });
const common = { tag: 'Identity', auth: 'project' } as const;

const listRoute = route({ ...common, method: 'GET', path: '/v1/iam/api-keys', summary: 'List the provider API keys (never their secrets)', permission: 'provider-keys:read', list: listOf(TYPE, PROVIDER_KEYS_LIST), query: z.object({ providerId: z.string().min(1).max(1024).optional() }), responses: { 200: collectionSchema(TYPE, attributes) } });
const createRoute = route({ ...common, method: 'POST', path: '/v1/iam/api-keys', summary: 'Create a provider API key; its secret is in this response only', permission: 'provider-keys:write', type: TYPE, idempotent: true, body: z.object({ name: z.string().trim().min(1).max(64), providerId: z.string().min(1).max(1024) }), responses: { 201: resourceSchema(TYPE, withSecret) } });
const rotateRoute = route({ ...common, method: 'POST', path: '/v1/iam/api-keys/{keyId}/rotate', summary: 'Replace the secret (the old one stops working); the new one is in this response only', permission: 'provider-keys:write', params: keyParams, idempotent: true, responses: { 200: resourceSchema(TYPE, withSecret) } });
const deleteRoute = route({ ...common, method: 'DELETE', path: '/v1/iam/api-keys/{keyId}', summary: 'Revoke and delete a provider API key (204, then 404)', permission: 'provider-keys:write', params: keyParams, responses: { 204: null } });

const keyResource = (d: ProviderKeyDoc) => ({ id: d.id, type: TYPE, attributes: { name: d.name, providerId: d.providerId, prefix: d.prefix, createdAt: d.createdAt, rotatedAt: d.rotatedAt, lastUsedAt: d.lastUsedAt } });
/** A create's or rotation's answer: the secret once; a re-run after a crash (no secret) says why it is not shown. */
const withSecretDocument = ({ doc, secret }: ProviderKeyAnswer, lost: string) =>
  secret === undefined ? resource(TYPE, doc.id, keyResource(doc).attributes, { meta: { secret: lost } }) : resource(TYPE, doc.id, { ...keyResource(doc).attributes, secret });

@Controller()
export class ProviderKeysController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListProviderKeys(dataScopeOf(principal), list));
    return listResult(items.map(keyResource), total);
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    return withSecretDocument(await this.commands.execute(new CreateProviderKey(dataScopeOf(principal), body, commandContext(req, principal))), 'Not shown: the answer that carried it was lost in an outage. Rotate the key for a new one.');
  }

  @ApiRoute(rotateRoute)
  async rotate(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof rotateRoute>['params']) {
    return withSecretDocument((await this.commands.execute(new ChangeProviderKey(dataScopeOf(principal), params.keyId, 'rotate', commandContext(req, principal))))!, 'Not shown: the answer that carried the new secret was lost in an outage. Rotate the key again for another one.');
  }

  @ApiRoute(deleteRoute)
  async delete(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deleteRoute>['params']) {
    await this.commands.execute(new ChangeProviderKey(dataScopeOf(principal), params.keyId, 'delete', commandContext(req, principal)));
  }
}
