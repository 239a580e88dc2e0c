/** OpenAPI 3.1 document built from the `@ApiRoute` registry, and the local swagger-ui page. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { errorDocumentSchema, RESOURCE_TYPE_MARK, SCHEMA_NAME_MARK } from './envelope';
import { RegisteredRoute, routeRegistry, takesAsOf, toOpenApiPath } from './route';
import { acceptsEmptyBody } from './body-shape';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
  /** The public base URL clients call (PUBLIC_URL; default: the listening URL), the document's `servers`. */
  serverUrl?: string;
  /** Default: the project's licence (proprietary). */
  license?: { name: string; url?: string; identifier?: string };
}

function schemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const j = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete j.$schema;
  return j;
}

// ---------------------------------------------------------------- error responses
/** Every error status an operation can answer, each a named response of the JSON:API error document. */
const ERROR_RESPONSES: Record<string, { name: string; description: string; headers?: Json }> = {
  400: { name: 'BadRequest', description: 'BAD_REQUEST (body, path or header), INVALID_QUERY (query parameters), or a malformed URL' },
  401: { name: 'Unauthorized', description: 'UNAUTHORIZED: no credential, or an invalid, revoked or expired one' },
  403: { name: 'Forbidden', description: "FORBIDDEN (the credential's role or kind may not do this) or HTTPS_REQUIRED (plain HTTP behind a TLS proxy)" },
  404: { name: 'NotFound', description: 'NOT_FOUND: no such resource in the project (another project\'s resources are invisible)' },
  409: { name: 'Conflict', description: 'INVALID_STATE (not allowed in the resource\'s status), CONFLICT, or IDEMPOTENCY_IN_PROGRESS' },
  413: { name: 'PayloadTooLarge', description: 'PAYLOAD_TOO_LARGE: the body is over 1 MiB' },
  414: { name: 'UriTooLong', description: 'URI_TOO_LONG: a path segment is over 1024 characters' },
  415: { name: 'UnsupportedMediaType', description: 'UNSUPPORTED_MEDIA_TYPE: a body that is not application/json or application/vnd.api+json' },
  422: { name: 'UnprocessableEntity', description: 'IDEMPOTENCY_KEY_REUSED (same key, other body), or a domain rule (INVALID_PLAN, INVALID_REGION, INVALID_OS, INSUFFICIENT_FUNDS)' },
  429: {
    name: 'TooManyRequests',
    description: 'RATE_LIMITED: `Retry-After` (and `meta.retryAfter`) gives the seconds to wait',
    headers: { 'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 0 } } },
  },
  431: { name: 'RequestHeaderFieldsTooLarge', description: 'HEADERS_TOO_LARGE: the request headers are over 16 KiB' },
  500: { name: 'InternalError', description: 'INTERNAL_ERROR: the detail names the request id to report' },
  503: { name: 'Unavailable', description: 'UNAVAILABLE: a dependency (store, identity provider) is down; retry later' },
};

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The error statuses a route can answer, from what the pipeline does for it. */
export function errorStatuses(r: RegisteredRoute): string[] {
  const out = ['400', '403', '431', '500', '503']; // 403: HTTPS_REQUIRED behind a proxy, on any route
  if (r.auth !== 'none') out.push('401');
  if (r.routePath.includes(':')) out.push('404', '414');
  if (MUTATING.has(r.method)) out.push('409', '413', '415');
  if (r.body || r.idempotent) out.push('422');
  if (r.rateLimit !== false) out.push('429');
  return out.sort();
}

function objectProps(s: z.ZodType): { name: string; schema: Json; required: boolean }[] {
  const j = schemaOf(s, 'input');
  const props = (j.properties ?? {}) as Record<string, Json>;
  const req = new Set((j.required ?? []) as string[]);
  return Object.entries(props).map(([name, schema]) => ({ name, schema, required: req.has(name) }));
}

function parameters(r: RegisteredRoute): Json[] {
  const out: Json[] = [];
  const pathNames = [...r.routePath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const declared = r.params ? objectProps(r.params) : [];
  for (const name of pathNames) out.push({ name, in: 'path', required: true, schema: declared.find((d) => d.name === name)?.schema ?? { type: 'string' } });
  if (r.list) {
    const alias = (name: string, of: string) => ({ name, in: 'query', description: `JSON:API alias of \`${of}\` (give one or the other)`, schema: { type: 'integer', minimum: 1 } });
    out.push(
      { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      alias('page[number]', 'page'),
      { ...alias('page[size]', 'limit'), schema: { type: 'integer', minimum: 1, maximum: 100 } },
      { ...alias('page[limit]', 'limit'), schema: { type: 'integer', minimum: 1, maximum: 100 } },
      { name: 'page[offset]', in: 'query', description: 'JSON:API alias of `page`: zero-based item offset, a multiple of the page size (`page` = offset / size + 1)', schema: { type: 'integer', minimum: 0 } },
      { name: 'sort', in: 'query', description: `Comma-separated; prefix '-' for descending. Fields: ${r.list.sortFields.join(', ')}`, schema: { type: 'string', default: r.list.defaultSort ?? '-createdAt' } },
      {
        name: 'cursor',
        in: 'query',
        description:
          'Opaque; set by `links.next` and `links.prev` beside their `page` (follow the link, do not build one). It lets the server seek to the page instead of skipping the ones before it; the answer is the page `page` names. A cursor that does not parse, or was issued for another page, limit, sort or filter, is 400 INVALID_QUERY.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
      },
      { name: `fields[${r.list.type}]`, in: 'query', description: 'Sparse fieldset: comma-separated attribute names', schema: { type: 'string' } },
    );
  }
  if (r.query) for (const q of objectProps(r.query)) out.push({ name: q.name, in: 'query', required: q.required, schema: q.schema });
  // JSON:API spelling of each filter (query-params.ts); any parameter not listed here is 400 INVALID_QUERY.
  if (r.query && r.list) for (const q of objectProps(r.query)) out.push({ name: `filter[${q.name}]`, in: 'query', description: `JSON:API alias of \`${q.name}\` (give one or the other)`, schema: q.schema });
  if (takesAsOf(r)) out.push({ name: 'asOf', in: 'query', description: 'The resource as it was at this instant (every event recorded at or before it); 404 if it did not exist yet', schema: { type: 'string', format: 'date-time' } });
  return out;
}

function requestBody(r: RegisteredRoute): Json | undefined {
  if (!r.body) return undefined;
  const flat = schemaOf(r.body, 'input');
  const wrapped = {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'object', required: ['attributes'], properties: { type: r.type ? { const: r.type } : { type: 'string' }, attributes: flat } } },
  };
  const schema = { oneOf: [flat, wrapped] };
  // A body of optional fields only may be left out (DECISIONS 14: no body, an empty one or `{}` alike).
  return { required: !acceptsEmptyBody(r.body), content: { 'application/json': { schema }, 'application/vnd.api+json': { schema } } };
}

function operation(r: RegisteredRoute, names: SchemaNamer): Json {
  const responses: Json = {};
  for (const [status, s] of Object.entries(r.responses)) {
    if (!s) {
      responses[status] = { description: status === '101' ? 'Switching Protocols: the connection is a WebSocket from here on' : `HTTP ${status}` };
      continue;
    }
    const schema = names.extract(schemaOf(s, 'output'), r);
    responses[status] = { description: `HTTP ${status}`, content: r.produces && Number(status) < 300 ? { [r.produces]: { schema } } : { 'application/json': { schema }, 'application/vnd.api+json': { schema } } };
  }
  for (const e of errorStatuses(r)) responses[e] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[e].name}` };
  // A route's own meaning of an error status: the generic response's headers and body, its description extended.
  for (const [e, note] of Object.entries(r.errorNotes ?? {})) {
    const generic = ERROR_RESPONSES[e];
    responses[e] = {
      description: generic ? `${note}; or ${generic.description}` : note,
      headers: { 'X-Request-Id': { description: 'The request id (echoed when the client sent a sane one)', schema: { type: 'string' } }, ...generic?.headers },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Errors' } }, 'application/vnd.api+json': { schema: { $ref: '#/components/schemas/Errors' } } },
    };
  }
  const op: Json = {
    operationId: `${r.controller}.${r.handler}`,
    summary: r.summary,
    tags: [r.tag],
    parameters: parameters(r),
    responses,
    security: r.auth === 'none' ? [] : [{ ApiKey: [] }, { Bearer: [] }],
  };
  if (r.description) op.description = r.description;
  if (r.permission) op['x-permission'] = r.permission;
  if (r.idempotent) (op.parameters as Json[]).push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
  const body = requestBody(r);
  if (body) op.requestBody = body;
  return op;
}

// ---------------------------------------------------------------- named component schemas
/** `api-keys` → `ApiKey`, `instances` → `Instance`, `cities` → `City`, `addresses` → `Address`. */
export function schemaNameOf(type: string): string {
  const words = type.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const last = words.pop() ?? 'Resource';
  const singular = /ies$/.test(last) ? `${last.slice(0, -3)}y` : /(ss|x|ch|sh)es$/.test(last) ? last.slice(0, -2) : /[^su]s$/.test(last) ? last.slice(0, -1) : last;
  return [...words, singular].map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

/** The type of a resource object written by hand (`{id, type: const, attributes}`), not with `resourceSchema`. */
function resourceTypeOf(node: Json): string | undefined {
  const props = node.properties as Record<string, Json> | undefined;
  const type = props?.type?.const;
  return node.type === 'object' && props?.id && props.attributes && typeof type === 'string' ? type : undefined;
}

interface Variant { content: string; schema: Json; routes: RegisteredRoute[]; refs: Json[] }

/**
 * Moves the marked schemas (envelope.ts: resource objects, list meta and links) out of the
 * responses into `components.schemas`. A resource type whose routes answer it with different
 * attributes gets one schema per variant: the one of its shortest GET path is `<Type>`, the others
 * `<Type><Handler>` (e.g. `ApiKeyCreate`, the create answer that carries the full key).
 */
class SchemaNamer {
  private readonly resources = new Map<string, Variant[]>();
  private readonly named = new Map<string, { content: string; schema: Json } | null>();

  /** Replaces the marked sub-schemas of `schema` with `$ref`s (named later, in `components()`). */
  extract(schema: Json, route: RegisteredRoute): Json {
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(walk);
      if (!node || typeof node !== 'object') return node;
      const out: Json = {};
      for (const [k, v] of Object.entries(node as Json)) out[k] = walk(v);
      const type = out[RESOURCE_TYPE_MARK] ?? resourceTypeOf(out);
      const name = out[SCHEMA_NAME_MARK];
      delete out[RESOURCE_TYPE_MARK];
      delete out[SCHEMA_NAME_MARK];
      if (typeof type === 'string') return this.resourceRef(type, out, route);
      if (typeof name === 'string') return this.namedRef(name, out);
      return out;
    };
    return walk(schema) as Json;
  }

  private resourceRef(type: string, schema: Json, route: RegisteredRoute): Json {
    const content = JSON.stringify(schema);
    const variants = this.resources.get(type) ?? this.resources.set(type, []).get(type)!;
    let v = variants.find((x) => x.content === content);
    if (!v) variants.push((v = { content, schema, routes: [], refs: [] }));
    if (!v.routes.includes(route)) v.routes.push(route);
    const ref: Json = { $ref: '' };
    v.refs.push(ref);
    return ref;
  }

  private namedRef(name: string, schema: Json): Json {
    const content = JSON.stringify(schema);
    const known = this.named.get(name);
    if (known === undefined) this.named.set(name, { content, schema });
    else if (known === null || known.content !== content) return schema; // an extended copy: stays inline
    return { $ref: `#/components/schemas/${name}` };
  }

  components(): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const [name, v] of this.named) if (v) out[name] = v.schema;
    const rank = (v: Variant) => Math.min(...v.routes.map((r) => r.routePath.length + (r.method === 'GET' ? 0 : 10_000)));
    for (const [type, variants] of this.resources) {
      const base = schemaNameOf(type);
      const ordered = [...variants].sort((a, b) => rank(a) - rank(b));
      ordered.forEach((v, i) => {
        let name = i === 0 ? base : `${base}${pascal(v.routes[0].handler)}`;
        for (let n = 2; out[name]; n++) name = `${base}${n}`;
        const { attributes, ...props } = (v.schema.properties ?? {}) as Json;
        if (attributes) out[`${name}Attributes`] = attributes as Json;
        out[name] = { ...v.schema, properties: { ...props, ...(attributes ? { attributes: { $ref: `#/components/schemas/${name}Attributes` } } : {}) } };
        for (const ref of v.refs) ref.$ref = `#/components/schemas/${name}`;
      });
    }
    return out;
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Health: 'Liveness, readiness and metrics; no credential needed, never rate-limited',
  Identity: 'Projects and API keys',
  Admin: 'Platform administration (a platform-admin key)',
};

export function buildOpenApiDocument(info: OpenApiInfo = {}, routes: readonly RegisteredRoute[] = routeRegistry()): Json {
  const names = new SchemaNamer();
  const paths: Record<string, Json> = {};
  for (const r of routes) (paths[toOpenApiPath(r.routePath)] ??= {})[r.method.toLowerCase()] = operation(r, names);
  const tags = [...new Set(routes.map((r) => r.tag))].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} routes` }));
  const errorContent = { schema: { $ref: '#/components/schemas/Errors' } };
  const responses: Record<string, Json> = {};
  for (const { name, description, headers } of Object.values(ERROR_RESPONSES)) {
    responses[name] = {
      description,
      headers: { 'X-Request-Id': { description: 'The request id (echoed when the client sent a sane one)', schema: { type: 'string' } }, ...headers },
      content: { 'application/json': errorContent, 'application/vnd.api+json': errorContent },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'Cloud Provisioning API',
      version: info.version ?? '0.1.0',
      ...(info.description ? { description: info.description } : {}),
      license: info.license ?? { name: 'Proprietary', url: `${(info.serverUrl ?? 'https://127.0.0.1:8443').replace(/\/$/, '')}/docs` },
    },
    servers: [{ url: (info.serverUrl ?? 'https://127.0.0.1:8443').replace(/\/$/, ''), description: 'This deployment' }],
    tags,
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-Service-API-Key' },
        Bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An identity-provider JWT (RS256 or ES256) verified against the configured issuer and JWKS (JWT_ISSUER, JWT_JWKS_URL or JWT_JWKS_FILE, ' +
            'optional JWT_AUDIENCE); `exp` and `sub` are required, the `project` claim (JWT_PROJECT_CLAIM) selects the project, `sub` the member, ' +
            'and the `role` claim (JWT_ROLE_CLAIM: owner, admin, developer or viewer; viewer when absent) the role. A project API key is also accepted as the bearer token. ' +
            'Platform-admin routes never accept a member token (403).',
        },
      },
      schemas: { Errors: schemaOf(errorDocumentSchema, 'output'), ...names.components() },
      responses,
    },
  };
}

// ---------------------------------------------------------------- swagger-ui (local files, no CDN)
export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png'] as const;

export function swaggerUiDir(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
}

export function readDocsAsset(name: (typeof DOCS_ASSETS)[number]): Buffer {
  return readFileSync(join(swaggerUiDir(), name));
}

export const DOCS_INIT_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', validatorUrl: null, dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
};`;

export const DOCS_HTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Cloud Provisioning API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="icon" type="image/png" href="/docs/favicon-32x32.png"></head>
<body><p>Events published on the topics: <a href="/v1/asyncapi.json">AsyncAPI document</a></p><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;
