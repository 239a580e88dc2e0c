import { Controller, Inject, Req, type Type } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Capability } from '../../../../libs/domain/providers/capabilities';
import { priceOf, type Priceable } from '../../../../libs/domain/catalog/pricing';
import { jobResourceDecider, type JobResource } from '../../../../libs/domain/shared/job-resource';
import { handleCommand, requestScopedId, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { badRequest } from '../../../../libs/application/src/errors';
import type { Principal } from '../../../../libs/http/src/auth';
import { unwrapBody } from '../../../../libs/http/src/body-shape';
import { collectionSchema, resourceSchema, toResource, type Resource } from '../../../../libs/http/src/envelope';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { listResult, type ListResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, type ParsedRequest } from '../../../../libs/http/src/route';
import type { ListShape } from '../../../../libs/readstore/src/list-shapes';
import type { Filter } from '../../../../libs/readstore/src/read-store.port';
import type { Ports, PortsOf } from '../../../../libs/runtime/src/ports';
import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import type { JobResourceDoc } from '../../../../libs/subscriptions/src/job-resource-projection';
import type { ProviderDoc } from '../../../../projections/providers/providers.projection';
import { CatalogValidation } from '../../../../usecases/catalog/catalog-validation';
import { commandContext } from '../identity/request-context';
import { ownDoc, requestedBy, settleJob, written } from '../../../../usecases/jobs/job-writes';
import { findProjectProvider } from '../../../../usecases/providers/find-provider';
import { requireSameProvider, resolveProvider } from '../../../../usecases/providers/resolve-provider';
import { PORTS } from '../tokens';
import { pathId, dataScopeOf } from './resource-lifecycle';
import { BusController } from './bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

type AnyObject = z.ZodObject;
type Doc = JobResourceDoc<AnyObject>;

/** What a request's lookups see. */
export interface LookupInput<B> {
  platform: Ports;
  projectId: string;
  provider: ProviderDoc;
  body: B;
  pointerPrefix: string;
}

/** An operation route besides create and delete: `POST <path>/{id}/<name>`. */
export interface ActionRoute {
  summary: string;
  /** The request body (none: `{}`). */
  body?: AnyObject;
  /** The lookups the operation's rules need: the args the request records (by default the body). */
  prepare?: (input: LookupInput<Record<string, unknown>> & { doc: Doc }) => Promise<Record<string, unknown>>;
}

/**
 * The HTTP side of a declared job-backed resource (DECISIONS 14): creates and operations answer
 * 202 with the resource and its `jobId`; reads come from its read model. Everything but the
 * lookups is derived from the declaration.
 */
export interface JobResourceRoutes<S extends AnyObject = AnyObject> {
  resource: JobResource<S>;
  projection: DocumentProjection<JobResourceDoc<S>> & { lists: ListShape[] };
  /** JSON:API type, e.g. `volumes`. */
  type: string;
  /** Collection path, e.g. `/v1/storage/volumes`. */
  path: string;
  tag: string;
  /** Permission prefix: `<permission>:read` / `:write`. */
  permission: string;
  /** What the provider must support (DECISIONS 14). */
  capability: Capability;
  /** The routes it has, by their summaries: without `create` or `delete` (snapshots: registered or synced only, DECISIONS 14) there is no such route. */
  summaries: { list: string; get?: string; create?: string; delete?: string };
  /** The create body; by default the resource's schema. */
  body?: AnyObject;
  /** The create's lookups: the fields to record (by default the body with its region resolved in the provider's catalog). */
  prepare?: (input: LookupInput<Record<string, unknown>>) => Promise<z.output<S>>;
  actions?: Record<string, ActionRoute>;
  /**
   * `POST <path>/{id}/actions` whose body names the operation in `action` (AI models, spec 4.16:
   * `stop`, `start`, `scale`); the rest of the body is the operation's args.
   */
  actionsRoute?: { summary: string; body: AnyObject };
  /** The create's status: 202 (default), or 201 where DECISIONS 13 has it (AI models); the resource and its `jobId` either way. */
  createStatus?: 201 | 202;
  /** `PATCH <path>/{id}`: the `update` operation, a job like the others (e.g. a firewall's rules). */
  update?: ActionRoute;
  /**
   * What a create costs (DECISIONS 22): its fields in the priced form of the domain's `priceOf`
   * (the plans they name, a size), which the create records and a cost estimate quotes.
   */
  price?: (input: LookupInput<z.output<S>>) => Promise<Priceable>;
  /** A content-derived id (a bucket: provider and name), so a duplicate lands on the same stream and is refused (409). */
  idFor?: (projectId: string, providerId: string, fields: z.output<S>) => string;
  /**
   * Secrets a create makes (a database password, a cluster credential): they go to the credential
   * vault here, the fields keep only references, and `reveal` is shown once, in the create's answer.
   */
  secrets?: (input: LookupInput<z.output<S>> & { id: string }) => Promise<{ fields?: Partial<z.output<S>>; reveal: Record<string, unknown> }>;
  /**
   * What a create reserves on a stream of its own before the resource's stream is written (a private
   * network's range on its region's ledger), so that racing creates are ordered; it may refuse (409).
   */
  reserve?: (input: LookupInput<z.output<S>> & { id: string; context: CommandContext }) => Promise<void>;
  /** `GET/POST <path>/db`: the operator's records of what exists at the provider, an import registered like a create. */
  records?: { list: string; create: string };
  /** The lookups a DELETE's rule needs (a cluster: the AI models it serves): the args the request records. */
  prepareDelete?: ActionRoute['prepare'];
  /** DELETE's status: 202 with the job (default), or 204 where the spec shows it (clusters). */
  deleteStatus?: 202 | 204;
  /** The field `?region=` filters on, for a resource without one `region` (an interconnection's two ends); default `region`. */
  regionField?: string;
}

/** The response attributes: the fields, what the provider reported, and the lifecycle. */
export function jobResourceAttributes(r: JobResource) {
  const shown = r.internal?.length ? r.schema.omit(Object.fromEntries(r.internal.map((k) => [k, true])) as never) : r.schema;
  return shown.extend({
    ...(r.provided?.shape ?? {}),
    status: z.string(),
    providerId: z.string(),
    errorMessage: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  });
}

function toResourceOf(routes: JobResourceRoutes, doc: Doc): Resource<Record<string, unknown>> {
  const keys = Object.keys(jobResourceAttributes(routes.resource).shape);
  const merged: Record<string, unknown> = { ...doc.provided, ...doc };
  return toResource(routes.type, doc.id, Object.fromEntries(keys.map((k) => [k, merged[k] ?? null])));
}

// ---------------------------------------------------------------- commands and queries
interface Call {
  principal: Principal | null;
  providerId?: string;
}
type Accepted = { data: Resource<Record<string, unknown>>; jobId: string };

export class CreateJobResource extends Command<Accepted> {
  constructor(
    readonly routes: JobResourceRoutes,
    readonly call: Call & { body: Record<string, unknown>; pointerPrefix: string; context: CommandContext },
  ) {
    super();
  }
}

export class RequestResourceOperation extends Command<Accepted> {
  constructor(
    readonly routes: JobResourceRoutes,
    readonly call: Call & { id: string; operation: string; body: Record<string, unknown>; pointerPrefix: string; context: CommandContext },
  ) {
    super();
  }
}

export class ImportJobResource extends Command<Resource<Record<string, unknown>>> {
  constructor(
    readonly routes: JobResourceRoutes,
    readonly call: Call & { body: Record<string, unknown>; pointerPrefix: string; context: CommandContext },
  ) {
    super();
  }
}

export class GetJobResource extends Query<Resource<Record<string, unknown>>> {
  constructor(
    readonly routes: JobResourceRoutes,
    readonly call: Call & { id: string },
  ) {
    super();
  }
}

export class ListJobResources extends Query<ListResult<object>> {
  constructor(
    readonly routes: JobResourceRoutes,
    /** `scope`: fields every listed resource has (a parent's id, e.g. a network's attachments). */
    readonly call: Call & { list: ListQuery<{ status?: string; region?: string; providerId?: string }>; records?: boolean; scope?: Record<string, string> },
  ) {
    super();
  }
}

const deciders = new WeakMap<JobResource, ReturnType<typeof jobResourceDecider>>();
const deciderOf = (r: JobResource) => deciders.get(r) ?? deciders.set(r, jobResourceDecider(r)).get(r)!;

@CommandHandler(CreateJobResource)
export class CreateJobResourceHandler implements ICommandHandler<CreateJobResource> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: CreateJobResource): Promise<Accepted> {
    const { resource, projection } = routes;
    const projectId = dataScopeOf(call.principal);
    const { provider, input, fields: prepared, price } = await jobResourceCreateLookups(this.ports, routes, projectId, call.providerId, call.body, call.pointerPrefix);
    let fields = prepared;
    const id = routes.idFor ? routes.idFor(projectId, provider.id, fields) : requestScopedId(call.context, 'resource');
    if (routes.reserve) await routes.reserve({ ...input, body: fields, id, context: call.context });
    // A re-run after a crash (DECISIONS 5) finds the secret its first run kept and showed: it makes none, and shows none.
    const secret = routes.secrets && !call.context.metadata.recovering ? await routes.secrets({ ...input, body: fields, id }) : null;
    if (secret?.fields) fields = { ...fields, ...secret.fields };
    const jobId = requestScopedId(call.context, 'job');
    const command = { type: 'CreateResource' as const, id, jobId, projectId, providerId: provider.id, providerKind: provider.name, fields, price: price ? priceOf(price) : undefined, now: this.ports.now() };
    const r = await handleCommand(this.ports.events, resource.stream(id), deciderOf(resource), command, call.context, { newStream: !routes.idFor });
    await settleJob(this.ports, r.position, jobId, projection.name);
    const data = toResourceOf(routes, await written(this.ports, projection as DocumentProjection<Doc>, resource.stream(id), id, projectId, r.position, resource.label));
    // Shown this once; afterwards only the vault holds it.
    if (secret) data.attributes = { ...data.attributes, ...secret.reveal };
    return { data, jobId };
  }
}

/** The create body a declaration takes (its own, else the resource's schema). */
export const jobResourceCreateBody = (routes: JobResourceRoutes): AnyObject => routes.body ?? routes.resource.schema;

/**
 * A create's lookups, shared by the create and its cost estimate (DECISIONS 22): the provider (404,
 * 400 UNSUPPORTED_PROVIDER), the fields it records (the catalog's 422s) and what prices them.
 */
export async function jobResourceCreateLookups(platform: Ports, routes: JobResourceRoutes, projectId: string, providerId: string | undefined, body: Record<string, unknown>, pointerPrefix: string) {
  const provider = await resolveProvider(platform, projectId, providerId, routes.capability);
  const input = { platform, projectId, provider, body, pointerPrefix };
  const fields = routes.prepare ? await routes.prepare(input) : await withRegion(input);
  const price = routes.price ? await routes.price({ ...input, body: fields }) : null;
  return { provider, input, fields, price };
}

/** The default create lookup: the region (when the resource has one) resolved in the provider's catalog. */
async function withRegion({ platform, provider, body }: LookupInput<Record<string, unknown>>): Promise<Record<string, unknown>> {
  if (typeof body.region !== 'string') return body;
  const region = await new CatalogValidation(platform).resolveRegion(provider.name, body.region);
  return { ...body, region: region.slug };
}

@CommandHandler(RequestResourceOperation)
export class RequestResourceOperationHandler implements ICommandHandler<RequestResourceOperation> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: RequestResourceOperation): Promise<Accepted> {
    const { resource, projection } = routes;
    const projectId = dataScopeOf(call.principal);
    const doc = await ownDoc(this.ports, projection as DocumentProjection<Doc>, projectId, call.id, resource.label);
    requireSameProvider(doc.providerId, call.providerId, resource.label);
    // The resource's own provider, even if it has been disabled since (a delete must still run).
    const provider = (await findProjectProvider(this.ports, projectId, doc.providerId)) ?? ({ id: doc.providerId, name: doc.providerKind } as ProviderDoc);
    const prepare = call.operation === 'delete' ? routes.prepareDelete : (call.operation === 'update' ? routes.update : routes.actions?.[call.operation])?.prepare;
    const input = { platform: this.ports, projectId, provider, body: call.body, pointerPrefix: call.pointerPrefix, doc };
    const args = prepare ? await prepare(input) : call.body;
    const jobId = requestScopedId(call.context, 'job');
    const command = { type: 'RequestOperation' as const, id: call.id, jobId, projectId, operation: call.operation, args, requestedBy: requestedBy(call.context), now: this.ports.now() };
    const r = await handleCommand(this.ports.events, resource.stream(call.id), deciderOf(resource), command, call.context);
    await settleJob(this.ports, r.position, jobId, projection.name);
    return { data: toResourceOf(routes, await written(this.ports, projection as DocumentProjection<Doc>, resource.stream(call.id), call.id, projectId, r.position, resource.label)), jobId };
  }
}

/** An import: validated like a create (provider, region, fields), recorded in the created state with the provider's id. */
@CommandHandler(ImportJobResource)
export class ImportJobResourceHandler implements ICommandHandler<ImportJobResource> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: ImportJobResource): Promise<Resource<Record<string, unknown>>> {
    const { resource, projection } = routes;
    const projectId = dataScopeOf(call.principal);
    const provider = await resolveProvider(this.ports, projectId, call.providerId, routes.capability);
    const { externalId, ...body } = call.body as { externalId: string } & Record<string, unknown>;
    const input = { platform: this.ports, projectId, provider, body, pointerPrefix: call.pointerPrefix };
    const fields = routes.prepare ? await routes.prepare(input) : await withRegion(input);
    const id = routes.idFor ? routes.idFor(projectId, provider.id, fields) : requestScopedId(call.context, 'resource');
    if (routes.reserve) await routes.reserve({ ...input, body: fields, id, context: call.context });
    const command = { type: 'ImportResource' as const, id, projectId, providerId: provider.id, providerKind: provider.name, fields, externalId, attributes: {}, now: this.ports.now() };
    const r = await handleCommand(this.ports.events, resource.stream(id), deciderOf(resource), command, call.context, { newStream: !routes.idFor });
    await this.ports.waitForProjections(r.position, [projection.name]);
    return recordOf(routes, await written(this.ports, projection as DocumentProjection<Doc>, resource.stream(id), id, projectId, r.position, resource.label));
  }
}

/** A record of the `/db` routes: the resource with the provider's id. */
const recordOf = (routes: JobResourceRoutes, doc: Doc) => {
  const r = toResourceOf(routes, doc);
  return { ...r, attributes: { ...r.attributes, externalId: doc.externalId } };
};

@QueryHandler(GetJobResource)
export class GetJobResourceHandler implements IQueryHandler<GetJobResource> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute({ routes, call }: GetJobResource) {
    const projectId = dataScopeOf(call.principal);
    const doc = await ownDoc(this.ports, routes.projection as DocumentProjection<Doc>, projectId, call.id, routes.resource.label);
    requireSameProvider(doc.providerId, call.providerId, routes.resource.label);
    return toResourceOf(routes, doc);
  }
}

@QueryHandler(ListJobResources)
export class ListJobResourcesHandler implements IQueryHandler<ListJobResources> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute({ routes, call }: ListJobResources): Promise<ListResult<object>> {
    const { status, region, providerId } = call.list.filters;
    const filter: Filter = { ...call.scope, projectId: dataScopeOf(call.principal) };
    if (status) filter.status = status;
    if (region) filter[routes.regionField ?? 'region'] = { $in: await new CatalogValidation(this.ports).regionSlugs(region) };
    const provider = providerId ?? call.providerId;
    if (provider) filter.providerId = provider;
    const { items, total } = await (await this.ports.projections.collection(routes.projection as DocumentProjection<Doc>)).find({ filter, sort: call.list.sort, skip: call.list.skip, limit: call.list.limit });
    return listResult(items.map((d) => (call.records ? recordOf(routes, d) : toResourceOf(routes, d))), total);
  }
}

/** The generic handlers every job-backed resource shares (registered once). */
export const JOB_RESOURCE_HANDLERS = [CreateJobResourceHandler, ImportJobResourceHandler, RequestResourceOperationHandler, GetJobResourceHandler, ListJobResourcesHandler];

// ---------------------------------------------------------------- the generated controller
const providerQuery = z.object({ providerId: z.string().min(1).max(64).optional().describe('The provider (DECISIONS 14); by default the only one that supports this') });

/** A Nest controller for a declared job-backed resource: each route maps HTTP to a command or query and back. */
export function jobResourceController<S extends AnyObject>(decl: JobResourceRoutes<S>): Type<unknown> {
  const routes = decl as unknown as JobResourceRoutes;
  const params = z.object({ id: pathId });
  const attributes = jobResourceAttributes(routes.resource);
  const accepted = resourceSchema(decl.type, attributes, { jobId: z.string() });
  const item = `${decl.path}/{id}`;
  const common = { tag: decl.tag, auth: 'project' as const };
  const read = `${decl.permission}:read`;
  const write = `${decl.permission}:write`;
  const list = decl.projection.lists[0];
  const statuses = [...new Set(Object.values(routes.resource.operations).flatMap((o) => [o.transient, o.final, ...(o.working ? [o.working] : [])]).concat(routes.resource.failed ?? 'error'))] as [string, ...string[]];
  const listQuery = providerQuery.extend({ status: z.enum(statuses).optional(), region: z.string().min(1).max(64).optional() });
  const providerOf = (p: ParsedRequest) => (p.query as { providerId?: string } | undefined)?.providerId;
  /**
   * A create's provider: `?providerId=`, or the body's `providerId` where the create body declares one
   * (a managed database, DECISIONS 14); the body goes on without it. Both given must agree (400).
   */
  const createProviderOf = (p: ParsedRequest, pointerPrefix: string): { providerId?: string; body: Record<string, unknown> } => {
    const { providerId: inBody, ...body } = p.body as Record<string, unknown>;
    const inQuery = providerOf(p);
    if (inBody === undefined) return { providerId: inQuery, body };
    if (inQuery !== undefined && inQuery !== inBody) throw badRequest([{ detail: 'providerId in the body differs from the providerId of the query', source: { pointer: `${pointerPrefix}/providerId` } }]);
    return { providerId: String(inBody), body };
  };

  @Controller()
  class JobResourceController extends BusController {
    list(principal: Principal, p: ParsedRequest) {
      return this.queries.execute(new ListJobResources(routes, { principal, list: p.list as ListQuery<{ providerId?: string }> }));
    }

    async get(principal: Principal, p: ParsedRequest) {
      return { data: await this.queries.execute(new GetJobResource(routes, { principal, providerId: providerOf(p), id: (p.params as { id: string }).id })) };
    }

    create(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const { pointerPrefix } = unwrapBody(req.body, decl.type);
      const { providerId, body } = createProviderOf(p, pointerPrefix);
      return this.commands.execute(new CreateJobResource(routes, { principal, providerId, body, pointerPrefix, context: commandContext(req, principal) }));
    }

    async delete(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const id = (p.params as { id: string }).id;
      const answer = await this.commands.execute(new RequestResourceOperation(routes, { principal, providerId: providerOf(p), id, operation: 'delete', body: {}, pointerPrefix: '', context: commandContext(req, principal) }));
      return decl.deleteStatus === 204 ? undefined : answer;
    }

    listRecords(principal: Principal, p: ParsedRequest) {
      return this.queries.execute(new ListJobResources(routes, { principal, list: p.list as ListQuery<{ providerId?: string }>, records: true }));
    }

    async importRecord(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const { pointerPrefix } = unwrapBody(req.body, decl.type);
      return { data: await this.commands.execute(new ImportJobResource(routes, { principal, providerId: providerOf(p), body: p.body as Record<string, unknown>, pointerPrefix, context: commandContext(req, principal) })) };
    }

    action(operation: string) {
      return (req: FastifyRequest, principal: Principal, p: ParsedRequest) => {
        const { pointerPrefix } = unwrapBody(req.body ?? {}, decl.type);
        const id = (p.params as { id: string }).id;
        return this.commands.execute(new RequestResourceOperation(routes, { principal, providerId: providerOf(p), id, operation, body: (p.body as Record<string, unknown>) ?? {}, pointerPrefix, context: commandContext(req, principal) }));
      };
    }
  }
  Object.defineProperty(JobResourceController, 'name', { value: `${decl.resource.name}Controller` });

  const proto = JobResourceController.prototype as unknown as Record<string, unknown>;
  const declare = (method: string, options: Parameters<typeof ApiRoute>[0], args: Array<'req' | 'principal' | 'parsed'>) => {
    const descriptor = Object.getOwnPropertyDescriptor(proto, method)!;
    args.forEach((a, i) => (a === 'req' ? Req() : a === 'principal' ? CurrentPrincipal() : Parsed())(proto, method, i));
    ApiRoute(options)(proto, method, descriptor);
  };
  declare('list', { ...common, method: 'GET', path: decl.path, summary: decl.summaries.list, permission: read, query: listQuery, list: listOf(decl.type, list), responses: { 200: collectionSchema(decl.type, attributes) } }, ['principal', 'parsed']);
  if (decl.summaries.get) declare('get', { ...common, method: 'GET', path: item, summary: decl.summaries.get, permission: read, params, query: providerQuery, responses: { 200: resourceSchema(decl.type, attributes) } }, ['principal', 'parsed']);
  if (decl.summaries.create) declare('create', { ...common, method: 'POST', path: decl.path, summary: decl.summaries.create, permission: write, type: decl.type, query: providerQuery, body: jobResourceCreateBody(routes), idempotent: true, responses: { [decl.createStatus ?? 202]: accepted } }, ['req', 'principal', 'parsed']);
  if (decl.summaries.delete) declare('delete', { ...common, method: 'DELETE', path: item, summary: decl.summaries.delete, permission: write, params, query: providerQuery, idempotent: true, responses: decl.deleteStatus === 204 ? { 204: null } : { 202: accepted } }, ['req', 'principal', 'parsed']);
  if (decl.records) {
    const recordAttributes = attributes.extend({ externalId: z.string().nullable() });
    const importBody = (decl.body ?? routes.resource.schema).extend({ externalId: z.string().min(1).max(255).describe("The provider's id of the resource") });
    declare('listRecords', { ...common, method: 'GET', path: `${decl.path}/db`, summary: decl.records.list, permission: read, query: listQuery, list: listOf(decl.type, list), responses: { 200: collectionSchema(decl.type, recordAttributes) } }, ['principal', 'parsed']);
    declare('importRecord', { ...common, method: 'POST', path: `${decl.path}/db`, summary: decl.records.create, permission: write, type: decl.type, query: providerQuery, body: importBody, idempotent: true, responses: { 201: resourceSchema(decl.type, recordAttributes) } }, ['req', 'principal', 'parsed']);
  }
  if (decl.update) {
    Object.defineProperty(proto, 'update', {
      value: function (this: JobResourceController, req: FastifyRequest, principal: Principal, p: ParsedRequest) {
        return this.action('update')(req, principal, p);
      },
      writable: true,
      configurable: true,
    });
    declare('update', { ...common, method: 'PATCH', path: item, summary: decl.update.summary, permission: write, type: decl.type, params, query: providerQuery, body: decl.update.body ?? z.object({}), idempotent: true, responses: { 202: accepted } }, ['req', 'principal', 'parsed']);
  }
  if (decl.actionsRoute) {
    Object.defineProperty(proto, 'actions', {
      value: function (this: JobResourceController, req: FastifyRequest, principal: Principal, p: ParsedRequest) {
        const { action, ...args } = p.body as { action: string } & Record<string, unknown>;
        return this.action(action)(req, principal, { ...p, body: args });
      },
      writable: true,
      configurable: true,
    });
    declare('actions', { ...common, method: 'POST', path: `${item}/actions`, summary: decl.actionsRoute.summary, permission: write, type: decl.type, params, query: providerQuery, body: decl.actionsRoute.body, idempotent: true, responses: { 202: accepted } }, ['req', 'principal', 'parsed']);
  }
  for (const [operation, action] of Object.entries(decl.actions ?? {})) {
    const method = `action_${operation.replace(/[^a-z0-9]/gi, '_')}`;
    Object.defineProperty(proto, method, {
      value: function (this: JobResourceController, req: FastifyRequest, principal: Principal, p: ParsedRequest) {
        return this.action(operation)(req, principal, p);
      },
      writable: true,
      configurable: true,
    });
    declare(method, { ...common, method: 'POST', path: `${item}/${operation}`, summary: action.summary, permission: write, type: decl.type, params, query: providerQuery, body: action.body ?? z.object({}), idempotent: true, responses: { 202: accepted } }, ['req', 'principal', 'parsed']);
  }
  return JobResourceController;
}
