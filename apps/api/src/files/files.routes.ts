import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { canonicalJson, readContent } from '../../../../libs/domain/files/file-content';
import type { Principal } from '../../../../libs/http/src/auth';
import { listLinksSchema, listMetaSchema, SCHEMA_NAME_MARK } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { FILE_VERSIONS_LIST, type FileVersionDoc } from '../../../../projections/file-versions/file-versions.projection';
import { FILES_LIST, type FileDoc } from '../../../../projections/files/files.projection';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { CreateFile, DeleteFile, GetFile, GetFileVersion, ListFiles, ListFileVersions, PutFileContent } from '../../../../usecases/files/files.handlers';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

export { FILE_HANDLERS } from '../../../../usecases/files/files.handlers';

// ---------------------------------------------------------------- records (spec 2.7: flat, no type/attributes)
const fileRecord = z
  .object({
    id: z.string(),
    path: z.string(),
    name: z.string(),
    size: z.number().int().describe('Byte length of the current version (UTF-8; JSON content as stored)'),
    mimeType: z.string(),
    status: z.enum(['synced', 'pending', 'error']).describe('Content is stored synchronously: always synced'),
    currentVersion: z.number().int().describe('0 means no content yet'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ [SCHEMA_NAME_MARK]: 'File' });
const versionRecord = z
  .object({
    id: z.string(),
    version: z.number().int(),
    content: z.unknown().describe('The string stored, or the JSON value (stored as its RFC 8785 canonical serialisation)'),
    checksum: z.string().describe('`sha256:` and the hex digest of the bytes stored'),
    size: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ [SCHEMA_NAME_MARK]: 'FileVersion' });
const one = <T extends z.ZodType>(record: T) => z.object({ data: record });
const many = <T extends z.ZodType>(record: T) => z.object({ data: z.array(record), meta: listMetaSchema, links: listLinksSchema });

export const fileItem = (d: FileDoc) => ({ id: d.id, path: d.path, name: d.name, size: d.size, mimeType: d.mimeType, status: d.status, currentVersion: d.currentVersion, createdAt: d.createdAt, updatedAt: d.updatedAt });
export const versionItem = (d: FileVersionDoc) => ({ id: d.versionId, version: d.version, content: readContent(d.encoding, d.text), checksum: d.checksum, size: d.size, createdAt: d.createdAt });

// ---------------------------------------------------------------- requests
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A string, or any JSON value but null (stored canonically; a number JSON cannot hold is refused). */
const contentField = z
  .unknown()
  .superRefine((v, ctx) => {
    if (v === undefined) ctx.addIssue({ code: 'custom', message: 'content is required' });
    else if (v === null) ctx.addIssue({ code: 'custom', message: 'content must be a string or a JSON value other than null' });
    else if (typeof v !== 'string') {
      try {
        canonicalJson(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'content holds a number JSON cannot represent' });
      }
    }
  })
  .describe('A string, or any JSON value (object, array, number, boolean); at most 512 KiB stored per version (413 PAYLOAD_TOO_LARGE)');
// A refinement makes a field required in zod 4, hence `optional()` around it for the create.
const content = (required: boolean) => (required ? contentField : contentField.optional());

const createBody = z.object({
  path: z.string().min(1).max(1024).refine((s) => !CONTROL.test(s), 'path must not contain control characters').describe('e.g. `/config/app`'),
  name: z.string().min(1).max(255).refine((s) => !CONTROL.test(s) && !s.includes('/'), 'name must not contain "/" or control characters'),
  mimeType: z
    .string()
    .max(255)
    .regex(/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(;[ -~]*)?$/, 'mimeType must be a media type such as text/plain')
    .optional()
    .describe('Default application/json for JSON content, else text/plain'),
  content: content(false),
});
const putBody = z.object({ content: content(true) });
const idParams = z.object({ id: pathId });
const versionParams = z.object({ id: pathId, version: pathId });
const common = { tag: 'Files', auth: 'project' as const };

const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/files',
  summary: "List the project's files (deleted ones excluded)",
  permission: 'files:read',
  list: listOf('files', FILES_LIST),
  responses: { 200: many(fileRecord) },
});
const getRoute = route({ ...common, method: 'GET', path: '/v1/files/{id}', summary: 'Get a file (a deleted one is 404)', permission: 'files:read', params: idParams, responses: { 200: one(fileRecord) } });
const versionsRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/files/{id}/versions',
  summary: "List a file's versions in version order, each with its content and checksum",
  permission: 'files:read',
  params: idParams,
  list: listOf('file-versions', FILE_VERSIONS_LIST),
  responses: { 200: many(versionRecord) },
});
const versionRoute = route({ ...common, method: 'GET', path: '/v1/files/{id}/versions/{version}', summary: 'Get one version of a file by its number', permission: 'files:read', params: versionParams, responses: { 200: one(versionRecord) } });
/** A create or PUT whose answer a crash lost answers the file as that write left it. */
const createRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/files',
  summary: 'Create a file, with its first version when content is given; path and name are unique among live files (409)',
  permission: 'files:write',
  type: 'files',
  body: createBody,
  idempotent: true,
  responses: { 201: one(fileRecord) },
});
const putRoute = route({
  ...common,
  method: 'PUT',
  path: '/v1/files/{id}',
  summary: 'Store new content as the next version; previous versions are kept (identical content still makes one)',
  permission: 'files:write',
  type: 'files',
  params: idParams,
  body: putBody,
  idempotent: true,
  responses: { 200: one(fileRecord) },
});
const removeRoute = route({ ...common, method: 'DELETE', path: '/v1/files/{id}', summary: 'Soft-delete a file: it leaves lists and answers 404', permission: 'files:write', params: idParams, responses: { 204: null } });

const projectOf = (p: Principal) => dataScopeOf(p);

/** Files (spec 4.14, DECISIONS 17): records answered flat, versions listed in order and readable by number. */
@Controller()
export class FilesController extends BusController {
  @ApiRoute(listRoute)
  list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    return this.queries.execute(new ListFiles(projectOf(principal), list, fileItem));
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return { data: fileItem(await this.queries.execute(new GetFile(projectOf(principal), params.id))) };
  }

  @ApiRoute(versionsRoute)
  versions(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof versionsRoute>['params'], @Parsed('list') list: RouteInput<typeof versionsRoute>['list']) {
    return this.queries.execute(new ListFileVersions(projectOf(principal), params.id, list, versionItem));
  }

  @ApiRoute(versionRoute)
  async version(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof versionRoute>['params']) {
    // A path segment is an id: anything but a version number is simply not found.
    if (!/^[1-9][0-9]{0,8}$/.test(params.version)) throw notFound('File version not found');
    return { data: versionItem(await this.queries.execute(new GetFileVersion(projectOf(principal), params.id, Number(params.version)))) };
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const mimeType = body.mimeType ?? (body.content === undefined || typeof body.content === 'string' ? 'text/plain' : 'application/json');
    const input = { path: body.path, name: body.name, mimeType, content: body.content === undefined ? undefined : { content: body.content } };
    return { data: fileItem(await this.commands.execute(new CreateFile(projectOf(principal), input, commandContext(req, principal)))) };
  }

  @ApiRoute(putRoute)
  async put(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof putRoute>['params'], @Parsed('body') body: RouteInput<typeof putRoute>['body']) {
    const doc = await this.commands.execute(new PutFileContent(projectOf(principal), params.id, { content: body.content }, commandContext(req, principal)));
    return { data: fileItem(doc) };
  }

  @ApiRoute(removeRoute)
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof removeRoute>['params']) {
    await this.commands.execute(new DeleteFile(projectOf(principal), params.id, commandContext(req, principal)));
  }
}
