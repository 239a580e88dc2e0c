import { Controller, Req, type Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SimpleResource } from '../../../../libs/domain/shared/simple-resource';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, type ParsedRequest } from '../../../../libs/http/src/route';
import { CreateSimpleResource, DeleteSimpleResource, GetSimpleResource, ListSimpleResources, type SimpleOp, type SimpleResourceUseCase } from '../../../../usecases/resources/simple-resources';
import { commandContext } from '../identity/request-context';
import { pathId, dataScopeOf } from './resource-lifecycle';
import { BusController } from './bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

type AnyObject = z.ZodObject;

/**
 * The HTTP side of a simple resource: which routes it has, where, under which permission. The use
 * case's part (the resource, its scope check and create lookups) is `SimpleResourceUseCase`
 * (usecases/resources); handlers, OpenAPI and envelopes are derived.
 */
export interface SimpleRoutes<S extends AnyObject, B extends z.ZodType = S, Q extends AnyObject = AnyObject> extends SimpleResourceUseCase<S, z.output<B>, z.output<Q>> {
  /** Collection path, e.g. `/v1/templates`; items are `<path>/{<idParam>}`. */
  path: string;
  idParam?: string;
  tag: string;
  /** Permission prefix: reads need `<permission>:read`, writes `<permission>:write`. */
  permission: string;
  /** The routes it has, with their OpenAPI summaries. */
  routes: Partial<Record<SimpleOp, string>>;
  /** Query parameters that scope every route (e.g. `providerId`); the use case checks that they name something of the project. */
  scope?: SimpleResourceUseCase<S, z.output<B>, z.output<Q>>['scope'] & { query: Q };
  /** The create body; by default the resource's schema. */
  body?: B;
}

/** The response attributes of a simple resource: its fields and its creation time. */
export const simpleAttributes = <S extends AnyObject>(r: SimpleResource<S>) => r.schema.extend({ createdAt: z.string() });

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
      return this.queries.execute(new ListSimpleResources(routes, { projectId: dataScopeOf(principal), query: scopeOf(p), list: p.list! }));
    }

    async get(principal: Principal, p: ParsedRequest) {
      return { data: await this.queries.execute(new GetSimpleResource(routes, { projectId: dataScopeOf(principal), query: scopeOf(p), id: (p.params as Record<string, string>)[idParam] })) };
    }

    async create(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      return { data: await this.commands.execute(new CreateSimpleResource(routes, { projectId: dataScopeOf(principal), query: scopeOf(p), body: p.body, context: commandContext(req, principal) })) };
    }

    async delete(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      await this.commands.execute(new DeleteSimpleResource(routes, { projectId: dataScopeOf(principal), query: scopeOf(p), id: (p.params as Record<string, string>)[idParam], context: commandContext(req, principal) }));
    }
  }
  Object.defineProperty(SimpleResourceController, 'name', { value: `${decl.resource.label.replace(/[^A-Za-z]/g, '')}Controller` });

  const proto = SimpleResourceController.prototype as unknown as Record<SimpleOp, unknown>;
  const declare = (op: SimpleOp, options: Parameters<typeof ApiRoute>[0], args: Array<'req' | 'principal' | 'parsed'>) => {
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
