import { Controller, Req, type Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { JobResource } from '../../../../libs/domain/shared/job-resource';
import { badRequest } from '../../../../libs/application/src/errors';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { ApiRoute, CurrentPrincipal, Parsed, type ParsedRequest } from '../../../../libs/http/src/route';
import { CreateJobResource, GetJobResource, ImportJobResource, ListJobResources, RequestResourceOperation, type JobResourceUseCase, type OperationLookups } from '../../../../usecases/resources/job-resources';
import { commandContext } from '../identity/request-context';
import { pathId, dataScopeOf } from './resource-lifecycle';
import { BusController } from './bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

export type { LookupInput } from '../../../../usecases/resources/job-resources';

type AnyObject = z.ZodObject;

/** An operation route besides create and delete: `POST <path>/{id}/<name>`; its lookups are the use case's. */
export interface ActionRoute extends OperationLookups {
  summary: string;
  /** The request body (none: `{}`). */
  body?: AnyObject;
}

/**
 * The HTTP side of a declared job-backed resource (DECISIONS 14): creates and operations answer
 * 202 with the resource and its `jobId`; reads come from its read model. The use case's part (the
 * resource, its lookups) is `JobResourceUseCase` (usecases/resources); this adds only the routes.
 */
export interface JobResourceRoutes<S extends AnyObject = AnyObject> extends JobResourceUseCase<S> {
  /** Collection path, e.g. `/v1/storage/volumes`. */
  path: string;
  tag: string;
  /** Permission prefix: `<permission>:read` / `:write`. */
  permission: string;
  /** The routes it has, by their summaries: without `create` or `delete` (snapshots: registered or synced only, DECISIONS 14) there is no such route. */
  summaries: { list: string; get?: string; create?: string; delete?: string };
  /** The create body; by default the resource's schema. */
  body?: AnyObject;
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
  /** `GET/POST <path>/db`: the operator's records of what exists at the provider, an import registered like a create. */
  records?: { list: string; create: string };
  /** DELETE's status: 202 with the job (default), or 204 where the spec shows it (clusters). */
  deleteStatus?: 202 | 204;
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

/** The create body a declaration takes (its own, else the resource's schema). */
export const jobResourceCreateBody = (routes: JobResourceRoutes): AnyObject => routes.body ?? routes.resource.schema;

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
  const createProviderOf = (p: ParsedRequest): { providerId?: string; body: Record<string, unknown> } => {
    const { providerId: inBody, ...body } = p.body as Record<string, unknown>;
    const inQuery = providerOf(p);
    if (inBody === undefined) return { providerId: inQuery, body };
    if (inQuery !== undefined && inQuery !== inBody) throw badRequest([{ detail: 'providerId in the body differs from the providerId of the query', source: { pointer: '/providerId' } }]);
    return { providerId: String(inBody), body };
  };

  @Controller()
  class JobResourceController extends BusController {
    list(principal: Principal, p: ParsedRequest) {
      return this.queries.execute(new ListJobResources(routes, { projectId: dataScopeOf(principal), list: p.list as ListQuery<{ providerId?: string }> }));
    }

    async get(principal: Principal, p: ParsedRequest) {
      return { data: await this.queries.execute(new GetJobResource(routes, { projectId: dataScopeOf(principal), providerId: providerOf(p), id: (p.params as { id: string }).id })) };
    }

    create(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const { providerId, body } = createProviderOf(p);
      return this.commands.execute(new CreateJobResource(routes, { projectId: dataScopeOf(principal), providerId, body, context: commandContext(req, principal) }));
    }

    async delete(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      const id = (p.params as { id: string }).id;
      const answer = await this.commands.execute(new RequestResourceOperation(routes, { projectId: dataScopeOf(principal), providerId: providerOf(p), id, operation: 'delete', body: {}, context: commandContext(req, principal) }));
      return decl.deleteStatus === 204 ? undefined : answer;
    }

    listRecords(principal: Principal, p: ParsedRequest) {
      return this.queries.execute(new ListJobResources(routes, { projectId: dataScopeOf(principal), list: p.list as ListQuery<{ providerId?: string }>, records: true }));
    }

    async importRecord(req: FastifyRequest, principal: Principal, p: ParsedRequest) {
      return { data: await this.commands.execute(new ImportJobResource(routes, { projectId: dataScopeOf(principal), providerId: providerOf(p), body: p.body as Record<string, unknown>, context: commandContext(req, principal) })) };
    }

    action(operation: string) {
      return (req: FastifyRequest, principal: Principal, p: ParsedRequest) => {
        const id = (p.params as { id: string }).id;
        return this.commands.execute(new RequestResourceOperation(routes, { projectId: dataScopeOf(principal), providerId: providerOf(p), id, operation, body: (p.body as Record<string, unknown>) ?? {}, context: commandContext(req, principal) }));
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
