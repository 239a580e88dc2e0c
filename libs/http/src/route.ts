/** `@ApiRoute(...)`: declarative route (Nest mapping + auth + zod validation + OpenAPI registry). */
import { Delete, Get, HttpCode, Patch, Post, Put, applyDecorators, createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { z } from 'zod';
import { unservedSorts, type ListQuery, type ListSpec } from './list-query';
import type { Principal } from './auth';
import { PERMISSION_PATTERN, PROJECT_ROLES, roleAllows } from '../../domain/identity/roles';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
import type { CataloguedPermission } from '../../application/src/permissions';
export type { RouteAuth } from './auth';
import type { RouteAuth } from './auth';

export interface ApiRouteOptions {
  method: HttpMethod;
  /** Full path, e.g. '/v1/instances/:id' (or '{id}'). Use `@Controller()` without a prefix. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** 'project': a project key/JWT; 'admin': the platform-admin credential; 'none': public. */
  auth: RouteAuth;
  /**
   * `resource:action` (action `read` or `write`), e.g. 'api-keys:write': the one permission the caller
   * needs (libs/domain/identity/roles.ts). Every `auth: 'project'` route declares one (a test walks the registry).
   */
  permission?: string;
  /** JSON:API type of the request body resource (checked when the client sends `data.type`). */
  type?: string;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Status → response body schema (`null` for no body, e.g. 204). The lowest 2xx is the default status. */
  responses: Record<number, z.ZodType | null>;
  /** false exempts the route from rate limits (health probes and scrapers must always get an answer). */
  rateLimit?: boolean;
  /** Honour `Idempotency-Key` (every create and action route). */
  idempotent?: boolean;
  /** Makes this a list route: page/limit/sort/fields[type] are parsed; `query` then holds the extra filters. */
  list?: ListSpec;
  /** The media type of the 2xx answers when not JSON (`text/event-stream`): the OpenAPI document says it instead of the JSON pair. */
  produces?: string;
  /** Error status → what this route answers with it beyond the generic meaning (e.g. a 429 of its own code), said in its OpenAPI response. */
  errorNotes?: Record<number, string>;
  /**
   * A credential this route also takes as a query parameter (the WebSocket's one-time ticket: a
   * browser cannot send headers on it). Redeemed before authorization; null refuses it (401).
   */
  queryCredential?: QueryCredential;
}

/** A credential read from a query parameter (`?ticket=`), redeemed by the application (its providers through `get`). */
export interface QueryCredential {
  parameter: string;
  redeem(value: string, ctx: { get<T>(token: abstract new (...args: never[]) => T): T; headerPrincipal: Principal | null }): Promise<Principal | null>;
}

/**
 * What a handler receives for a route declared with `options` (`@Parsed()`, or one part of it with
 * `@Parsed('body')`): the types come from the declaration's schemas, never restated by hand.
 */
export type RouteInput<O extends ApiRouteOptions> = {
  body: O['body'] extends z.ZodType ? z.output<O['body']> : undefined;
  query: O['query'] extends z.ZodType ? z.output<O['query']> : undefined;
  params: O['params'] extends z.ZodType ? z.output<O['params']> : undefined;
  list: O['list'] extends ListSpec ? ListQuery<O['query'] extends z.ZodType ? z.output<O['query']> : Record<string, never>> : undefined;
};

/** A GET of one resource (path parameters, not a list): what takes `?asOf=` (DECISIONS 20; apps/api/src/common/as-of.ts). */
export const takesAsOf = (r: Pick<ApiRouteOptions, 'method' | 'list' | 'params' | 'produces'>): boolean => r.method === 'GET' && !r.list && !!r.params && !r.produces;

/** Declares a route once, keeping its schemas' types for `RouteInput<typeof …>`. */
export const route = <const O extends ApiRouteOptions>(options: O): O => options;

export interface RegisteredRoute extends ApiRouteOptions {
  /** Path in Fastify/Nest syntax (`:id`). */
  routePath: string;
  controller: string;
  handler: string;
}

const registry: RegisteredRoute[] = [];
const byKey = new Map<string, RegisteredRoute>();

export const toRoutePath = (p: string): string => p.replace(/\{([^}]+)\}/g, ':$1');
export const toOpenApiPath = (p: string): string => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

export function routeRegistry(): readonly RegisteredRoute[] {
  return registry;
}

/** Route declared for this method and Fastify route pattern (what `request.routeOptions.url` holds). */
export function findRoute(method: string, routePattern: string | undefined): RegisteredRoute | undefined {
  if (!routePattern) return undefined;
  return byKey.get(key(method === 'HEAD' ? 'GET' : method, routePattern));
}

export type { CataloguedPermission } from '../../application/src/permissions';

/** The permissions project routes declare, generated from the registry, ordered by permission. */
export function permissionCatalogue(routes: readonly RegisteredRoute[] = routeRegistry()): CataloguedPermission[] {
  const byPermission = new Map<string, CataloguedPermission>();
  for (const r of routes) {
    if (r.auth !== 'project' || !r.permission) continue;
    const [resource, action] = r.permission.split(':');
    const entry = byPermission.get(r.permission) ?? byPermission.set(r.permission, { permission: r.permission, resource, action, routes: [], roles: PROJECT_ROLES.filter((role) => roleAllows(role, r.permission!)) }).get(r.permission)!;
    entry.routes.push({ method: r.method, path: toOpenApiPath(r.routePath), summary: r.summary });
  }
  const ordered = [...byPermission.values()].sort((a, b) => (a.permission < b.permission ? -1 : a.permission > b.permission ? 1 : 0));
  for (const e of ordered) e.routes.sort((a, b) => (a.path === b.path ? (a.method < b.method ? -1 : 1) : a.path < b.path ? -1 : 1));
  return ordered;
}

/** Project routes that declare no permission, or one not of the form `resource:read|write`: must be none. */
export const routesLackingPermission = (routes: readonly RegisteredRoute[] = routeRegistry()): RegisteredRoute[] =>
  routes.filter((r) => r.auth === 'project' && !(r.permission && PERMISSION_PATTERN.test(r.permission)));

const MAPPERS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete } as const;

/**
 * Puts a route in the registry (OpenAPI, authorization, validation) without mapping it in Nest: for a
 * route the application registers with Fastify itself (the WebSocket upgrade, `@fastify/websocket`).
 */
export function declareRoute(options: ApiRouteOptions, controller: string, handler: string): RegisteredRoute {
  refuseUnservedSorts(options);
  const entry: RegisteredRoute = { ...options, routePath: toRoutePath(options.path), controller, handler };
  const k = key(options.method, entry.routePath);
  const existing = byKey.get(k);
  if (existing) registry.splice(registry.indexOf(existing), 1);
  registry.push(entry);
  byKey.set(k, entry);
  return entry;
}

/** A route offers no sort its read model's declared list shapes (hence their indexes) do not serve: refused when declared. */
function refuseUnservedSorts(options: ApiRouteOptions): void {
  const unserved = options.list ? unservedSorts(options.list) : [];
  if (unserved.length) throw new Error(`${options.method} ${options.path}: ${unserved.join('; ')}`);
}

export function ApiRoute(options: ApiRouteOptions): MethodDecorator {
  refuseUnservedSorts(options);
  const statuses = Object.keys(options.responses).map(Number).filter((s) => s >= 200 && s < 300).sort();
  const nest = applyDecorators(MAPPERS[options.method](toRoutePath(options.path)), ...(statuses.length ? [HttpCode(statuses[0])] : []));
  return (target, propertyKey, descriptor) => {
    declareRoute(options, (target as { constructor: { name: string } }).constructor.name, String(propertyKey));
    return nest(target, propertyKey, descriptor);
  };
}

// ---------------------------------------------------------------- what handlers receive
export interface ParsedRequest<B = unknown, Q = unknown, P = unknown> {
  body: B;
  query: Q;
  params: P;
  list?: ListQuery<unknown>;
  /** Where the body's fields are (`/data/attributes` for a JSON:API document, else ''): errors found later point there too. */
  bodyPointer?: string;
}

/** The request fields this library adds (set by the hooks in pipeline.ts). */
export interface HttpRequestState {
  id: string;
  parsed?: ParsedRequest;
  principal?: Principal | null;
}

const reqOf = (ctx: ExecutionContext) => ctx.switchToHttp().getRequest<HttpRequestState>();

/** `@Parsed()` → `{body, query, params, list}`; `@Parsed('body')` → the validated body. */
export const Parsed = createParamDecorator((part: keyof ParsedRequest | undefined, ctx: ExecutionContext) => {
  const parsed = reqOf(ctx).parsed;
  return part ? parsed?.[part] : parsed;
});
export const ParsedBody = () => Parsed('body');
export const ParsedQuery = () => Parsed('query');
export const ParsedParams = () => Parsed('params');
/** The parsed list query (`{page, limit, skip, sort, fields, filters}`) of a list route. */
export const ListParams = () => Parsed('list');

/** The authenticated principal (null on `auth: 'none'` routes without a credential). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext) => reqOf(ctx).principal ?? null);
