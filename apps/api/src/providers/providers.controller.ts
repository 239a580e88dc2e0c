import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import { principalProjectId, type Principal } from '../../../../libs/http/src/auth';
import { resource, resourceSchema, collectionSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { notFound } from '../../../../libs/http/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { PROVIDER_KINDS } from '../../../../libs/domain/providers/events';
import type { ProviderDoc } from '../../../../projections/providers/providers.projection';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';
import { commandContext } from '../identity/request-context';
import { findProjectProvider } from './find-provider';
import { providersServiceFor, type ProvidersService } from './providers.service';
import { pathId } from '../common/resource-lifecycle';

export const providerAttributes = z.object({
  name: z.enum(PROVIDER_KINDS),
  enabled: z.boolean(),
  region: z.string().nullable(),
  credentialsConfigured: z.boolean().describe('Whether credentials are stored (they are never returned)'),
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
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    },
  };
}

const projectOf = (p: Principal) => principalProjectId(p) ?? '';
const credentialsOf = (b: { credentials?: { apiKey: string }; apiKey?: string }) =>
  b.credentials ? { apiKey: b.credentials.apiKey } : b.apiKey !== undefined ? { apiKey: b.apiKey } : undefined;

@Controller()
export class ProvidersController {
  private readonly service: ProvidersService;

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.service = providersServiceFor(platform);
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/providers',
    summary: 'List the providers of the project (metadata only; credentials are never returned)',
    tag: 'Providers',
    auth: 'project',
    permission: 'providers:read',
    list: { type: 'providers', sortFields: ['createdAt', 'updatedAt', 'name'] },
    query: z.object({ enabled: z.enum(['true', 'false']).optional(), name: z.enum(PROVIDER_KINDS).optional() }),
    responses: { 200: collectionSchema('providers', providerAttributes) },
  })
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: ListQuery<{ enabled?: 'true' | 'false'; name?: string }>) {
    const filter: Record<string, string | boolean | null> = { projectId: projectOf(principal), deletedAt: null };
    if (list.filters.enabled) filter.enabled = list.filters.enabled === 'true';
    if (list.filters.name) filter.name = list.filters.name;
    const { items, total } = await (await this.service.collection()).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
    return listResult(items.map(providerResource), total);
  }

  @ApiRoute({
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
  })
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: z.infer<typeof createBody>) {
    const doc = await this.service.register(
      projectOf(principal),
      { name: body.name, credentials: credentialsOf(body) ?? null, region: body.region ?? null, enabled: body.enabled ?? true },
      commandContext(req, principal),
    );
    const r = providerResource(doc);
    return resource(r.type, r.id, r.attributes);
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/providers/{id}',
    summary: 'Get a provider',
    tag: 'Providers',
    auth: 'project',
    permission: 'providers:read',
    params: idParams,
    responses: { 200: resourceSchema('providers', providerAttributes) },
  })
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: z.infer<typeof idParams>) {
    const doc = await findProjectProvider(this.platform, projectOf(principal), params.id);
    if (!doc) throw notFound('Provider not found');
    const r = providerResource(doc);
    return resource(r.type, r.id, r.attributes);
  }

  @ApiRoute({
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
  })
  async update(
    @Req() req: FastifyRequest,
    @CurrentPrincipal() principal: Principal,
    @Parsed('params') params: z.infer<typeof idParams>,
    @Parsed('body') body: z.infer<typeof updateBody>,
  ) {
    if (!(await findProjectProvider(this.platform, projectOf(principal), params.id))) throw notFound('Provider not found');
    const doc = await this.service.update(
      projectOf(principal),
      params.id,
      { name: body.name, enabled: body.enabled, region: body.region, credentials: credentialsOf(body) },
      commandContext(req, principal),
    );
    const r = providerResource(doc);
    return resource(r.type, r.id, r.attributes);
  }

  @ApiRoute({
    method: 'DELETE',
    path: '/v1/providers/{id}',
    summary: 'Delete a provider and forget its credentials',
    tag: 'Providers',
    auth: 'project',
    permission: 'providers:write',
    params: idParams,
    responses: { 204: null },
  })
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: z.infer<typeof idParams>) {
    if (!(await findProjectProvider(this.platform, projectOf(principal), params.id))) throw notFound('Provider not found');
    await this.service.delete(projectOf(principal), params.id, commandContext(req, principal));
  }
}
