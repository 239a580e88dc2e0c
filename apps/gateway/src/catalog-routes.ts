import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PUBLIC_MODELS, publicModel, type PublicModel } from '../../../libs/domain/gateway/catalog';
import type { CommandContext } from '../../../libs/eventstore/src/handle-command';
import { listOf, listResponse, pageOf, parseListQuery } from '../../../libs/http/src/list-query';
import type { Ports } from '../../../libs/runtime/src/ports';
import { GATEWAY_CONNECTIONS_LIST, gatewayConnectionsProjection, type GatewayConnectionDoc } from '../../../projections/gateway-connections/gateway-connections.projection';
import { GATEWAY_CUSTOM_MODELS_LIST, gatewayCustomModelsProjection, type GatewayCustomModelDoc } from '../../../projections/gateway-models/gateway-models.projection';
import {
  addConnection,
  changeCustomModel,
  connectionOf,
  createCustomModel,
  deleteConnection,
  deleteCustomModel,
  resolveModel,
  setWaterfall,
  verifyConnection,
  type ConnectionProbe,
  type Organization,
} from '../../../usecases/gateway/org-catalog';
import { notFound } from './errors';

/** What the catalog routes need of the gateway: who asks (a key or a session, or nobody), body parsing. */
export interface CatalogDeps {
  ports: Ports;
  probe: ConnectionProbe;
  /** The organization of a key or session; throws the uniform 401 without either. */
  organization(req: FastifyRequest): Promise<{ org: Organization; ctx: CommandContext }>;
  /** The organization when the request carries a key or session, else null (catalog reads are keyless). */
  maybeOrganization(req: FastifyRequest): Promise<Organization | null>;
  parse<T>(schema: z.ZodType<T>, body: unknown): T;
}

const CONNECTIONS_SPEC = listOf('providers', GATEWAY_CONNECTIONS_LIST);
const connectionFilter = z.object({ kind: z.enum(['openai', 'anthropic']).optional(), status: z.enum(['unverified', 'verified', 'failed']).optional() });
const CUSTOM_SPEC = listOf('models', GATEWAY_CUSTOM_MODELS_LIST);

const price = z.object({ inputPerMTok: z.number().min(0).max(1_000_000), outputPerMTok: z.number().min(0).max(1_000_000) }).strict();
const connectionBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    kind: z.enum(['openai', 'anthropic']).describe('openai: an OpenAI-compatible chat completions API; anthropic: an Anthropic-compatible messages API'),
    baseUrl: z.string().min(1).max(2000).describe('as the vendor SDK takes it: https://api.openai.com/v1, https://api.anthropic.com'),
    secret: z.string().min(1).max(4000).describe('write-only: kept encrypted, never answered'),
  })
  .strict();
const FREE = { inputPerMTok: 0, outputPerMTok: 0 };
const modelBody = z
  .object({
    id: z.string().min(1).max(100),
    kind: z.enum(['custom', 'local']).default('custom').describe('custom: an alias of an upstream model at its own price; local: a model an upstream of the organization serves'),
    connectionId: z.string().min(1).max(100),
    upstreamModel: z.string().min(1).max(200).optional().describe('the model name on the connection; a local model defaults to its id'),
    price: price.optional().describe('USD per million tokens; required for a custom model, zero by default for a local one'),
    maxOutputTokens: z.number().int().min(1).max(1_000_000).default(4096),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.kind !== 'custom') return;
    if (!b.upstreamModel) ctx.addIssue({ code: 'custom', path: ['upstreamModel'], message: 'required for a custom model' });
    if (!b.price) ctx.addIssue({ code: 'custom', path: ['price'], message: 'required for a custom model' });
  });
const modelPatch = z.object({ connectionId: z.string().min(1).max(100).optional(), upstreamModel: z.string().min(1).max(200).optional(), price: price.optional(), maxOutputTokens: z.number().int().min(1).max(1_000_000).optional() }).strict();
const waterfallBody = z.object({ targets: z.array(z.object({ connectionId: z.string().min(1).max(100), model: z.string().min(1).max(200).optional() }).strict()).min(1).max(8) }).strict();

/** A connection as answered: never its secret, nor the vault's reference of it. */
const connectionRow = (d: GatewayConnectionDoc) => ({
  id: d.id,
  type: 'providers',
  attributes: { name: d.name, kind: d.kind, baseUrl: d.baseUrl, status: d.status, lastVerifiedAt: d.lastVerifiedAt, lastError: d.lastError, models: d.models, createdAt: d.createdAt },
});
type ModelAttributes = { source: 'public' | 'custom' | 'local'; ownedBy: string; contextWindow: number | null; connectionId: string | null; upstreamModel: string | null; maxOutputTokens: number; price: { inputPerMTok: number; outputPerMTok: number }; createdAt: string };
const publicRow = (m: PublicModel): { id: string; type: string; attributes: ModelAttributes } => ({
  id: m.id,
  type: 'models',
  attributes: { source: 'public', ownedBy: m.ownedBy, contextWindow: m.contextWindow, connectionId: null, upstreamModel: null, maxOutputTokens: m.maxOutputTokens, price: m.price, createdAt: m.createdAt },
});
const customRow = (d: GatewayCustomModelDoc): { id: string; type: string; attributes: ModelAttributes } => ({
  id: d.alias,
  type: 'models',
  attributes: { source: d.kind ?? 'custom', ownedBy: 'organization', contextWindow: null, connectionId: d.connectionId, upstreamModel: d.upstreamModel, maxOutputTokens: d.maxOutputTokens, price: d.price, createdAt: d.createdAt },
});

/** Provider connections, custom models and waterfalls under /api (DECISIONS 19): an organization key or a session. */
export function registerCatalogRoutes(app: FastifyInstance, d: CatalogDeps): void {
  const { ports } = d;

  app.post('/api/providers', async (req, reply) => {
    const { org, ctx } = await d.organization(req);
    const body = d.parse(connectionBody, req.body);
    return reply.code(201).send({ data: connectionRow(await addConnection(ports, org, body, ctx)) });
  });
  app.get('/api/providers', async (req) => {
    const { org } = await d.organization(req);
    const list = parseListQuery(req.query as Record<string, string>, CONNECTIONS_SPEC, connectionFilter);
    const filter: Record<string, unknown> = { projectId: org.scope, ...list.filters };
    const { items, total } = await (await ports.projections.collection(gatewayConnectionsProjection)).find({ filter: filter as never, ...pageOf(list) });
    return listResponse(req, list, items.map(connectionRow), total);
  });
  app.get<{ Params: { id: string } }>('/api/providers/:id', async (req) => ({ data: connectionRow(await connectionOf(ports, (await d.organization(req)).org, req.params.id)) }));
  app.post<{ Params: { id: string } }>('/api/providers/:id/verify', async (req) => {
    const { org, ctx } = await d.organization(req);
    return { data: connectionRow(await verifyConnection(ports, d.probe, org, req.params.id, ctx)) };
  });
  app.delete<{ Params: { id: string } }>('/api/providers/:id', async (req, reply) => {
    const { org, ctx } = await d.organization(req);
    await deleteConnection(ports, org, req.params.id, ctx);
    return reply.code(204).send();
  });

  // Catalog reads: public rows for everyone; with a key or session, the organization's custom and local models after them.
  app.get('/api/models', async (req) => {
    const org = await d.maybeOrganization(req);
    const list = parseListQuery(req.query as Record<string, string>, CUSTOM_SPEC);
    const publicRows = PUBLIC_MODELS.map(publicRow);
    if (!org) return listResponse(req, list, publicRows.slice(list.skip, list.skip + list.limit), publicRows.length);
    const custom = await (await ports.projections.collection(gatewayCustomModelsProjection)).find({ filter: { projectId: org.scope }, sort: list.sort, skip: Math.max(0, list.skip - publicRows.length), limit: list.limit });
    const head = publicRows.slice(list.skip, list.skip + list.limit);
    return listResponse(req, list, [...head, ...custom.items.map(customRow)].slice(0, list.limit), publicRows.length + custom.total);
  });
  app.get<{ Params: { id: string } }>('/api/models/:id', async (req) => {
    const pub = publicModel(req.params.id);
    if (pub) return { data: publicRow(pub) };
    const org = await d.maybeOrganization(req);
    const doc = org ? await (await ports.projections.collection(gatewayCustomModelsProjection)).findOne({ projectId: org.scope, alias: req.params.id }) : null;
    if (!doc) throw notFound(`Model ${req.params.id} not found`);
    return { data: customRow(doc) };
  });
  app.post('/api/models', async (req, reply) => {
    const { org, ctx } = await d.organization(req);
    const { id, kind, upstreamModel, price: own, ...rest } = d.parse(modelBody, req.body);
    const fields = { kind, upstreamModel: upstreamModel ?? id, price: own ?? FREE, ...rest };
    return reply.code(201).send({ data: customRow(await createCustomModel(ports, org, id, fields, ctx)) });
  });
  app.patch<{ Params: { id: string } }>('/api/models/:id', async (req) => {
    const { org, ctx } = await d.organization(req);
    return { data: customRow(await changeCustomModel(ports, org, req.params.id, d.parse(modelPatch, req.body), ctx)) };
  });
  app.delete<{ Params: { id: string } }>('/api/models/:id', async (req, reply) => {
    const { org, ctx } = await d.organization(req);
    await deleteCustomModel(ports, org, req.params.id, ctx);
    return reply.code(204).send();
  });
  app.get<{ Params: { id: string } }>('/api/models/:id/waterfall', async (req) => {
    const { org } = await d.organization(req);
    const route = await resolveModel(ports, org, req.params.id);
    if (!route) throw notFound(`Model ${req.params.id} not found`);
    return { data: { type: 'waterfalls', id: route.id, attributes: { targets: route.targets } } };
  });
  app.put<{ Params: { id: string } }>('/api/models/:id/waterfall', async (req) => {
    const { org, ctx } = await d.organization(req);
    const targets = await setWaterfall(ports, org, req.params.id, d.parse(waterfallBody, req.body).targets, ctx);
    return { data: { type: 'waterfalls', id: req.params.id, attributes: { targets } } };
  });
}
