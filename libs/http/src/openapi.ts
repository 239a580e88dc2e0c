/** OpenAPI 3.1 document built from the `@ApiRoute` registry, and the local swagger-ui page. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { errorDocumentSchema } from './envelope';
import { RegisteredRoute, routeRegistry, toOpenApiPath } from './route';

type Json = Record<string, unknown>;

export interface OpenApiInfo { title?: string; version?: string; description?: string }

function schemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const j = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete j.$schema;
  return j;
}

const ERROR_REF = { $ref: '#/components/responses/Error' };

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
    out.push(
      { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'sort', in: 'query', description: `Comma-separated; prefix '-' for descending. Fields: ${r.list.sortFields.join(', ')}`, schema: { type: 'string', default: r.list.defaultSort ?? '-createdAt' } },
      { name: `fields[${r.list.type}]`, in: 'query', description: 'Sparse fieldset: comma-separated attribute names', schema: { type: 'string' } },
    );
  }
  if (r.query) for (const q of objectProps(r.query)) out.push({ name: q.name, in: 'query', required: q.required, schema: q.schema });
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
  return { required: true, content: { 'application/json': { schema }, 'application/vnd.api+json': { schema } } };
}

function operation(r: RegisteredRoute): Json {
  const responses: Json = {};
  for (const [status, s] of Object.entries(r.responses)) {
    responses[status] = s ? { description: `HTTP ${status}`, content: { 'application/json': { schema: schemaOf(s, 'output') }, 'application/vnd.api+json': { schema: schemaOf(s, 'output') } } } : { description: `HTTP ${status}` };
  }
  const errors = ['400', '429', '500'];
  if (r.auth !== 'none') errors.push('401', '403');
  if (r.routePath.includes(':')) errors.push('404');
  if (r.idempotent) errors.push('409', '422');
  for (const e of errors) responses[e] ??= ERROR_REF;
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

export function buildOpenApiDocument(info: OpenApiInfo = {}, routes: readonly RegisteredRoute[] = routeRegistry()): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) (paths[toOpenApiPath(r.routePath)] ??= {})[r.method.toLowerCase()] = operation(r);
  const errorSchema = schemaOf(errorDocumentSchema, 'output');
  return {
    openapi: '3.1.0',
    info: { title: info.title ?? 'Cloud Provisioning API', version: info.version ?? '0.1.0', ...(info.description ? { description: info.description } : {}) },
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
      schemas: { Errors: errorSchema },
      responses: {
        Error: {
          description: 'JSON:API error document',
          headers: { 'X-Request-Id': { schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Errors' } }, 'application/vnd.api+json': { schema: { $ref: '#/components/schemas/Errors' } } },
        },
      },
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
  window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
};`;

export const DOCS_HTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Cloud Provisioning API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="icon" type="image/png" href="/docs/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;
