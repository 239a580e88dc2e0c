import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { principalDataScope, type Principal } from '../../../../libs/http/src/auth';
import { resource, resourceSchema, collectionSchema } from '../../../../libs/http/src/envelope';
import { PROVIDER_KINDS } from '../../../../libs/domain/providers/events';
import { CAPABILITIES, PROVIDER_CAPABILITIES } from '../../../../libs/domain/providers/capabilities';
import { PROVIDERS_LIST, type ProviderDoc } from '../../../../projections/providers/providers.projection';
import { commandContext } from '../identity/request-context';
import { pathId } from '../common/resource-lifecycle';
import { DeleteProvider, GetProvider, ListProviders, RegisterProvider, UpdateProvider } from '../../../../usecases/providers/providers.handlers';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

export const providerAttributes = z.object({
  name: z.enum(PROVIDER_KINDS),
  enabled: z.boolean(),
  region: z.string().nullable(),
  credentialsConfigured: z.boolean().describe('Whether credentials are stored (they are never returned)'),
  capabilities: z.array(z.enum(CAPABILITIES)).describe("What the provider's kind supports beyond compute (DECISIONS 14); other networking, storage and Kubernetes operations answer 400 UNSUPPORTED_PROVIDER"),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const credentials = z.object({ apiKey: z.string().min(1).max(4096) }).strict();
const region = z.string().min(1).max(64);

const createBody = z
  .object({
    name: z.enum(PROVIDER_KINDS),
    credentials: credentials.optional().describe('Provider credentials; stored encrypted, never returned'),
    apiKey: z.string().min(1).max(4096).optional().describe('Shorthand for credentials.apiKey'),
    region: region.optional(),
    enabled: z.boolean().optional().describe('Default true'),
  })
  .refine((b) => b.credentials !== undefined || b.apiKey !== undefined, { message: 'credentials.apiKey or apiKey is required', path: ['credentials'] });

const updateBody = z.object({
  name: z.enum(PROVIDER_KINDS).optional(),
  credentials: credentials.optional(),
  apiKey: z.string().min(1).max(4096).optional(),
  region: region.nullable().optional(),
  enabled: z.boolean().optional(),
});

const idParams = z.object({ id: pathId });

export function providerResource(doc: ProviderDoc) {
  return {
    id: doc.id,
    type: 'providers',
    attributes: {
      name: doc.name,
      enabled: doc.enabled,
      region: doc.region,
      credentialsConfigured: doc.credentialsRef !== null,
      capabilities: [...PROVIDER_CAPABILITIES[doc.name]],
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    },
  };
}

function providerDocument(doc: ProviderDoc) {
  const r = providerResource(doc);
  return resource(r.type, r.id, r.attributes);
}

const projectOf = (p: Principal) => principalDataScope(p) ?? '';
const credentialsOf = (b: { credentials?: { apiKey: string }; apiKey?: string }) =>
  b.credentials ? { apiKey: b.credentials.apiKey } : b.apiKey !== undefined ? { apiKey: b.apiKey } : undefined;

const listRoute = route({
  method: 'GET',
  path: '/v1/providers',
  summary: 'List the providers of the project (metadata only; credentials are never returned)',
  tag: 'Providers',
  auth: 'project',
  permission: 'providers:read',
  list: listOf('providers', PROVIDERS_LIST),
  query: z.object({ enabled: z.enum(['true', 'false']).optional(), name: z.enum(PROVIDER_KINDS).optional() }),
  responses: { 200: collectionSchema('providers', providerAttributes) },
});
const createRoute = route({
  method: 'POST',
  path: '/v1/providers',
  summary: 'Register a provider with its credentials (stored encrypted)',
  tag: 'Providers',
  auth: 'project',
  permission: 'providers:write',
  type: 'providers',
  body: createBody,
  idempotent: true,
  responses: { 201: resourceSchema('providers', providerAttributes) },
});
const getRoute = route({
  method: 'GET',
  path: '/v1/providers/{id}',
  summary: 'Get a provider',
  tag: 'Providers',
  auth: 'project',
  permission: 'providers:read',
  params: idParams,
  responses: { 200: resourceSchema('providers', providerAttributes) },
});
const updateRoute = route({
  method: 'PATCH',
  path: '/v1/providers/{id}',
  summary: 'Update name, credentials, region or enabled',
  tag: 'Providers',
  auth: 'project',
  permission: 'providers:write',
  type: 'providers',
  params: idParams,
  body: updateBody,
  responses: { 200: resourceSchema('providers', providerAttributes) },
});
const removeRoute = route({
  method: 'DELETE',
  path: '/v1/providers/{id}',
  summary: 'Delete a provider and forget its credentials',
  tag: 'Providers',
  auth: 'project',
  permission: 'providers:write',
  params: idParams,
  responses: { 204: null },
});

@Controller()
export class ProvidersController extends BusController {
  @ApiRoute(listRoute)
  list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    return this.queries.execute(new ListProviders(projectOf(principal), list, providerResource));
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const input = { name: body.name, credentials: credentialsOf(body) ?? null, region: body.region ?? null, enabled: body.enabled ?? true };
    return providerDocument(await this.commands.execute(new RegisterProvider(projectOf(principal), input, commandContext(req, principal))));
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return providerDocument(await this.queries.execute(new GetProvider(projectOf(principal), params.id)));
  }

  @ApiRoute(updateRoute)
  async update(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof updateRoute>['params'], @Parsed('body') body: RouteInput<typeof updateRoute>['body']) {
    const input = { name: body.name, enabled: body.enabled, region: body.region, credentials: credentialsOf(body) };
    return providerDocument(await this.commands.execute(new UpdateProvider(projectOf(principal), params.id, input, commandContext(req, principal))));
  }

  @ApiRoute(removeRoute)
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof removeRoute>['params']) {
    await this.commands.execute(new DeleteProvider(projectOf(principal), params.id, commandContext(req, principal)));
  }
}
