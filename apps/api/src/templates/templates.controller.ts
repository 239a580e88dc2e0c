import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { Principal } from '../../../../libs/http/src/auth';
import { unwrapBody } from '../../../../libs/http/src/body-shape';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { badRequest } from '../../../../libs/http/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import { MAX_TEMPLATE_TAGS, instanceTemplateDecider, templateStream } from '../../../../libs/domain/templates';
import { templatesProjection, type InstanceTemplateDoc } from '../../../../projections/templates/templates.projection';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';
import { requireProjectProvider } from '../common/project-provider';
import { ResourceLifecycle, idParams, nowIso, projectIdOf } from '../common/resource-lifecycle';
import { CatalogValidation } from '../catalog/catalog-validation';
import type { ProviderKind } from '../../../../libs/domain/providers/events';

const TYPE = 'instance-templates';

export const templateAttributes = z.object({
  name: z.string(),
  providerId: z.string(),
  region: z.string(),
  instanceType: z.string(),
  image: z.string().nullable(),
  diskSizeGb: z.number().int().nullable(),
  sshKeyId: z.string().nullable(),
  accelerators: z.string().nullable().describe('`<GPU type>:<count>`, e.g. `A100:8`'),
  workerCount: z.number().int(),
  spot: z.boolean(),
  tags: z.record(z.string(), z.string()),
  createdAt: z.string(),
});

const tagKey = z.string().min(1).max(128);
const tagValue = z.string().max(256);
/** DECISIONS 13: an object of string values, or an array of `{key, value}`; stored as an object sorted by key. */
const tags = z
  .union([z.record(tagKey, tagValue), z.array(z.object({ key: tagKey, value: tagValue }))])
  .transform((t, ctx) => {
    const entries: [string, string][] = Array.isArray(t) ? t.map((e) => [e.key, e.value]) : Object.entries(t);
    if (new Set(entries.map(([k]) => k)).size !== entries.length) ctx.addIssue({ code: 'custom', message: 'tag keys must be unique' });
    if (entries.length > MAX_TEMPLATE_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TEMPLATE_TAGS} tags` });
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });

const createBody = z.object({
  name: z.string().min(1).max(64),
  providerId: z.string().min(1).max(64),
  region: z.string().min(1).max(64),
  instanceType: z.string().min(1).max(64),
  image: z.string().min(1).max(255).optional(),
  diskSizeGb: z.number().int().min(1).max(65536).optional(),
  sshKeyId: z.string().min(1).max(64).optional().describe('An SSH key of the same provider'),
  accelerators: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}:[1-9][0-9]{0,2}$/, 'accelerators must be "<GPU type>:<count>", e.g. "A100:8"')
    .optional(),
  workerCount: z.number().int().min(1).max(1000).default(1),
  spot: z.boolean().default(false),
  tags: tags.optional(),
});
type CreateBody = z.infer<typeof createBody>;

const attributes = (doc: InstanceTemplateDoc) => ({
  name: doc.name,
  providerId: doc.providerId,
  region: doc.region,
  instanceType: doc.instanceType,
  image: doc.image,
  diskSizeGb: doc.diskSizeGb,
  sshKeyId: doc.sshKeyId,
  accelerators: doc.accelerators,
  workerCount: doc.workerCount,
  spot: doc.spot,
  tags: doc.tags,
  createdAt: doc.createdAt,
});

/** Reusable instance launch specifications (spec 2.8, 4.6). */
@Controller()
export class TemplatesController {
  private readonly templates;

  private readonly catalog: CatalogValidation;

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.catalog = new CatalogValidation(platform);
    this.templates = new ResourceLifecycle(platform, { type: TYPE, label: 'Instance template', projection: templatesProjection, stream: templateStream, decider: instanceTemplateDecider, attributes });
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/templates',
    summary: 'List the instance templates of the project',
    tag: 'Templates',
    auth: 'project',
    permission: 'templates:read',
    list: { type: TYPE, sortFields: ['createdAt', 'name'] },
    responses: { 200: collectionSchema(TYPE, templateAttributes) },
  })
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: ListQuery) {
    return this.templates.list(principal, list);
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/templates/{id}',
    summary: 'Get an instance template',
    tag: 'Templates',
    auth: 'project',
    permission: 'templates:read',
    params: idParams,
    responses: { 200: resourceSchema(TYPE, templateAttributes) },
  })
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: z.infer<typeof idParams>) {
    return this.templates.document(await this.templates.get(principal, params.id));
  }

  @ApiRoute({
    method: 'POST',
    path: '/v1/templates',
    summary: 'Create an instance template',
    tag: 'Templates',
    auth: 'project',
    permission: 'templates:write',
    type: TYPE,
    body: createBody,
    idempotent: true,
    responses: { 201: resourceSchema(TYPE, templateAttributes) },
  })
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: CreateBody) {
    const projectId = projectIdOf(principal);
    const provider = await requireProjectProvider(this.platform, projectId, body.providerId, { requireEnabled: true });
    // A template must be launchable as written: 422 INVALID_REGION / INVALID_PLAN / INVALID_OS as on an instance create.
    await this.catalog.validateCompute({ providerKind: provider.name as ProviderKind, region: body.region, instanceType: body.instanceType, image: body.image ?? null });
    if (body.sshKeyId) await this.requireSshKey(req, projectId, body.providerId, body.sshKeyId);
    const templateId = uuidv7();
    return this.templates.create(req, principal, templateId, {
      type: 'CreateInstanceTemplate',
      templateId,
      projectId,
      spec: {
        name: body.name,
        providerId: body.providerId,
        region: body.region,
        instanceType: body.instanceType,
        image: body.image ?? null,
        diskSizeGb: body.diskSizeGb ?? null,
        sshKeyId: body.sshKeyId ?? null,
        accelerators: body.accelerators ?? null,
        workerCount: body.workerCount,
        spot: body.spot,
        tags: body.tags ?? {},
      },
      now: nowIso(),
    });
  }

  @ApiRoute({
    method: 'DELETE',
    path: '/v1/templates/{id}',
    summary: 'Delete an instance template',
    tag: 'Templates',
    auth: 'project',
    permission: 'templates:write',
    params: idParams,
    responses: { 204: null },
  })
  async delete(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: z.infer<typeof idParams>) {
    await this.templates.get(principal, params.id);
    await this.templates.execute(req, principal, params.id, { type: 'DeleteInstanceTemplate', templateId: params.id, projectId: projectIdOf(principal), now: nowIso() });
  }

  /** A referenced key must be one of the project's keys on the template's provider. */
  private async requireSshKey(req: FastifyRequest, projectId: string, providerId: string, keyId: string): Promise<void> {
    const key = await (await this.platform.projections.collection(sshKeysProjection)).get(keyId);
    if (key && key.projectId === projectId && key.providerId === providerId) return;
    const { pointerPrefix } = unwrapBody(req.body, TYPE);
    throw badRequest([{ detail: `SSH key ${keyId} not found for provider ${providerId}`, source: { pointer: `${pointerPrefix}/sshKeyId` } }]);
  }
}
