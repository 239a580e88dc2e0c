import { Controller, Inject, Req, type Type } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { simpleResourceDecider, type SimpleResource } from '../../../../libs/domain/shared/simple-resource';
import { handleCommand, requestScopedId, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import type { Principal } from '../../../../libs/http/src/auth';
import { unwrapBody } from '../../../../libs/http/src/body-shape';
import { collectionSchema, resource as resourceDocument, resourceSchema, type ResourceDocument } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { listResult, type ListResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, type ParsedRequest } from '../../../../libs/http/src/route';
import type { Ports, PortsOf } from '../../../../libs/runtime/src/ports';
import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import type { ListShape } from '../../../../libs/readstore/src/list-shapes';
import type { SimpleResourceDoc } from '../../../../libs/subscriptions/src/simple-resource-projection';
import { commandContext } from '../identity/request-context';
import { PORTS } from '../tokens';
import { pathId, dataScopeOf } from './resource-lifecycle';
import { BusController } from './bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

type Op = 'list' | 'get' | 'create' | 'delete';
type AnyObject = z.ZodObject;

/** What a create's lookups see: the validated body and query, and where the body's fields sit (for error pointers). */
export interface CreateInput<B, Q> {
  platform: Ports;
  projectId: string;
  body: B;
  query: Q;
  pointerPrefix: string;
}

/**
 * The HTTP side of a simple resource: which routes it has, where, under which permission, and the
 * lookups its create needs. Everything else (handlers, OpenAPI, envelopes) is derived.
 */
export interface SimpleRoutes<S extends AnyObject, B extends z.ZodType = S, Q extends AnyObject = AnyObject> {
  resource: SimpleResource<S>;
  /** Its read model; the list route offers the sorts its list shape declares. */
  projection: DocumentProjection<SimpleResourceDoc<S>> & { lists: ListShape[] };
  /** JSON:API type, e.g. `instance-templates`. */
  type: string;
  /** Collection path, e.g. `/v1/templates`; items are `<path>/{<idParam>}`. */
  path: string;
  idParam?: string;
  tag: string;
  /** Permission prefix: reads need `<permission>:read`, writes `<permission>:write`. */
  permission: string;
  /** The routes it has, with their OpenAPI summaries. */
  routes: Partial<Record<Op, string>>;
  /** Query parameters that scope every route (e.g. `providerId`), and the check that they name something of the project. */
  scope?: { query: Q; check: (platform: Ports, projectId: string, query: z.output<Q>, op: Op) => Promise<void> };
  /** The create body; by default the resource's schema. */
  body?: B;
  /** The lookups of a create (the handler's part): the id to use and the fields to record. By default a new id and the body. */
  prepare?: (input: CreateInput<z.output<B>, z.output<Q>>) => Promise<{ id?: string; fields: z.output<S> }>;
}

/** The response attributes of a simple resource: its fields and its creation time. */
export const simpleAttributes = <S extends AnyObject>(r: SimpleResource<S>) => r.schema.extend({ createdAt: z.string() });

// ---------------------------------------------------------------- commands and queries
interface Call {
  principal: Principal | null;
  query: Record<string, unknown>;
}

export class CreateSimpleResource extends Command<ResourceDocument> {
  constructor(
    readonly routes: SimpleRoutes<AnyObject, z.ZodType, AnyObject>,
    readonly call: Call & { body: unknown; pointerPrefix: string; context: CommandContext },
  ) {
    super();
  }
}

export class DeleteSimpleResource extends Command<void> {
  constructor(
    readonly routes: SimpleRoutes<AnyObject, z.ZodType, AnyObject>,
    readonly call: Call & { id: string; context: CommandContext },
  ) {
    super();
  }
}

export class GetSimpleResource extends Query<ResourceDocument> {
  constructor(
    readonly routes: SimpleRoutes<AnyObject, z.ZodType, AnyObject>,
    readonly call: Call & { id: string },
  ) {
    super();
  }
}

export class ListSimpleResources extends Query<ListResult<object>> {
  constructor(
    readonly routes: SimpleRoutes<AnyObject, z.ZodType, AnyObject>,
    readonly call: Call & { list: ListQuery<unknown> },
  ) {
    super();
  }
}

const deciders = new WeakMap<SimpleResource, ReturnType<typeof simpleResourceDecider>>();
const deciderOf = (r: SimpleResource) => deciders.get(r) ?? deciders.set(r, simpleResourceDecider(r)).get(r)!;

function toDocument(routes: SimpleRoutes<AnyObject, z.ZodType, AnyObject>, doc: SimpleResourceDoc<AnyObject>): ResourceDocument {
  const keys = Object.keys(simpleAttributes(routes.resource).shape);
  return resourceDocument(routes.type, doc.id, Object.fromEntries(keys.map((k) => [k, (doc as Record<string, unknown>)[k]])));
}

/** The project's document `id`, within the route's scope, else 404. */
async function findOwned(ports: PortsOf<'projections'>, routes: SimpleRoutes<AnyObject, z.ZodType, AnyObject>, call: Call & { id: string }): Promise<SimpleResourceDoc<AnyObject>> {
  const doc = await (await ports.projections.collection(routes.projection)).get(call.id);
  const inScope = doc && doc.projectId === dataScopeOf(call.principal) && Object.entries(call.query).every(([k, v]) => (doc as Record<string, unknown>)[k] === v);
  if (!doc || !inScope) throw notFound(`${routes.resource.label} not found`);
  return doc;
}

@CommandHandler(CreateSimpleResource)
export class CreateSimpleResourceHandler implements ICommandHandler<CreateSimpleResource> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: CreateSimpleResource): Promise<ResourceDocument> {
    const projectId = dataScopeOf(call.principal);
    await routes.scope?.check(this.ports, projectId, call.query, 'create');
    const input = { platform: this.ports, projectId, body: call.body, query: call.query, pointerPrefix: call.pointerPrefix };
    const { id = requestScopedId(call.context, 'resource'), fields } = routes.prepare ? await routes.prepare(input) : { fields: call.body as Record<string, unknown> };
    const stream = routes.resource.stream(id);
    const result = await handleCommand(this.ports.events, stream, deciderOf(routes.resource), { type: 'CreateResource', id, projectId, fields, now: this.ports.now() }, call.context);
    await this.ports.waitForProjections(result.position, [routes.projection.name]);
    return toDocument(routes, (await this.ports.readBack(routes.projection, stream, id, result.position))!);
  }
}

@CommandHandler(DeleteSimpleResource)
export class DeleteSimpleResourceHandler implements ICommandHandler<DeleteSimpleResource> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: DeleteSimpleResource): Promise<void> {
    const projectId = dataScopeOf(call.principal);
    await routes.scope?.check(this.ports, projectId, call.query, 'delete');
    await findOwned(this.ports, routes, call);
    const command = { type: 'DeleteResource' as const, id: call.id, projectId, scope: call.query, now: this.ports.now() };
    const result = await handleCommand(this.ports.events, routes.resource.stream(call.id), deciderOf(routes.resource), command, call.context);
    await this.ports.waitForProjections(result.position, [routes.projection.name]);
  }
}

@QueryHandler(GetSimpleResource)
export class GetSimpleResourceHandler implements IQueryHandler<GetSimpleResource> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: GetSimpleResource): Promise<ResourceDocument> {
    await routes.scope?.check(this.ports, dataScopeOf(call.principal), call.query, 'get');
    return toDocument(routes, await findOwned(this.ports, routes, call));
  }
}

@QueryHandler(ListSimpleResources)
export class ListSimpleResourcesHandler implements IQueryHandler<ListSimpleResources> {
  constructor(@Inject(PORTS) private readonly ports: Ports) {}

  async execute({ routes, call }: ListSimpleResources): Promise<ListResult<object>> {
    await routes.scope?.check(this.ports, dataScopeOf(call.principal), call.query, 'list');
    const { items, total } = await (await this.ports.projections.collection(routes.projection)).find({
      filter: { ...call.query, projectId: dataScopeOf(call.principal) },
      sort: call.list.sort,
      skip: call.list.skip,
      limit: call.list.limit,
    });
    return listResult(items.map((d) => toDocument(routes, d).data), total);
  }
}

/** The generic handlers every simple resource shares (registered once). */
export const SIMPLE_RESOURCE_HANDLERS = [CreateSimpleResourceHandler, DeleteSimpleResourceHandler, GetSimpleResourceHandler, ListSimpleResourcesHandler];

// ---------------------------------------------------------------- the generated controller
/**
 * A Nest controller for a simple resource's declared routes: each maps HTTP to a command or query
 * and back. Validation, OpenAPI, auth and idempotency come from the route declarations.
 */
export function simpleResourceController<S extends AnyObject, B extends z.ZodType = S, Q extends AnyObject = AnyObject>(decl: SimpleRoutes<S, B, Q>): Type<unknown> {
  const routes = decl as unknown as SimpleRoutes<AnyObject, z.ZodType, AnyObject>;
  const idParam = decl.idParam ?? 'id';
  const params = z.object({ [idParam]: pathId });
  const attributes = simpleAttributes(decl.resource);
  const common = { tag: decl.tag, auth: 'project' as const, ...(decl.scope ? { query: decl.scope.query } : {}) };
  const item = `${decl.path}/{${idParam}}`;
  const scopeOf = (p: ParsedRequest) => (decl.scope ? (p.query as Record<string, unknown>) : {});

  @Controller()
  class SimpleResourceController extends BusController {
    list(principal: Principal, p: ParsedRequest) {
      return this.queries.execute(new ListSimpleResources(routes, { principal, query: scopeOf(p), list: p.list! }));
    }

    get(principal: Principal, p: ParsedRequest) {
      return this.queries.execute(new GetSimpleResource(routes, { principal, query: scopeOf(p), id: (p.params as Record<string, string>)[idParam] }));
    }

    create(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const { pointerPrefix } = unwrapBody(req.body, decl.type);
      return this.commands.execute(new CreateSimpleResource(routes, { principal, query: scopeOf(p), body: p.body, pointerPrefix, context: commandContext(req, principal) }));
    }

    async delete(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      await this.commands.execute(new DeleteSimpleResource(routes, { principal, query: scopeOf(p), id: (p.params as Record<string, string>)[idParam], context: commandContext(req, principal) }));
    }
  }
  Object.defineProperty(SimpleResourceController, 'name', { value: `${decl.resource.label.replace(/[^A-Za-z]/g, '')}Controller` });

  const proto = SimpleResourceController.prototype as unknown as Record<Op, unknown>;
  const declare = (op: Op, options: Parameters<typeof ApiRoute>[0], args: Array<'req' | 'principal' | 'parsed'>) => {
    if (!decl.routes[op]) return;
    const descriptor = Object.getOwnPropertyDescriptor(proto, op)!;
    args.forEach((a, i) => (a === 'req' ? Req() : a === 'principal' ? CurrentPrincipal() : Parsed())(proto, op, i));
    ApiRoute(options)(proto, op, descriptor);
  };
  const read = `${decl.permission}:read`;
  const write = `${decl.permission}:write`;
  declare('list', { ...common, method: 'GET', path: decl.path, summary: decl.routes.list!, permission: read, list: listOf(decl.type, decl.projection.lists[0]!), responses: { 200: collectionSchema(decl.type, attributes) } }, ['principal', 'parsed']);
  declare('get', { ...common, method: 'GET', path: item, summary: decl.routes.get!, permission: read, params, responses: { 200: resourceSchema(decl.type, attributes) } }, ['principal', 'parsed']);
  declare('create', { ...common, method: 'POST', path: decl.path, summary: decl.routes.create!, permission: write, type: decl.type, body: decl.body ?? decl.resource.schema, idempotent: true, responses: { 201: resourceSchema(decl.type, attributes) } }, ['req', 'principal', 'parsed']);
  declare('delete', { ...common, method: 'DELETE', path: item, summary: decl.routes.delete!, permission: write, params, responses: { 204: null } }, ['req', 'principal', 'parsed']);
  return SimpleResourceController;
}
