import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { CreateProject, ListProjects } from '../../../../usecases/identity/identity.handlers';
import { commandContext } from './request-context';
import { apiKeyAttributes, apiKeyResource } from './api-keys.controller';
import { BusController } from '../common/bus-controller';
import { ADMIN_PROJECTS_LIST, workspaceOfProject, type ProjectDoc } from '../../../../projections/projects/projects.projection';
import { listOf } from '../../../../libs/http/src/list-query';

const projectAttributes = z.object({ name: z.string(), workspaceId: z.string().describe('The workspace the project belongs to (DECISIONS 15); a project that started one has its own id'), createdAt: z.string() });
const createBody = z.object({
  name: z.string().min(1).max(64),
  workspaceId: z.string().min(1).max(1024).optional().describe("A workspace to join (an existing project's `workspaceId`; unknown: 404). Absent: the project starts its own, whose id is the project's"),
});
const projectResource = (p: ProjectDoc) => ({ id: p.id, type: 'projects' as const, attributes: { name: p.name, workspaceId: workspaceOfProject(p), createdAt: p.createdAt } });

/** Operator extension: platform admins create projects (each with its first API key). */
const createRoute = route({
  method: 'POST',
  path: '/v1/admin/projects',
  summary: 'Create a project and its first API key (platform admin only; operator extension), in its own workspace or one it joins',
  tag: 'Admin',
  auth: 'admin',
  type: 'projects',
  body: createBody,
  idempotent: true,
  responses: {
    201: z.object({
      data: z.object({ id: z.string(), type: z.literal('projects'), attributes: projectAttributes }),
      included: z.array(z.object({ id: z.string(), type: z.literal('api-keys'), attributes: apiKeyAttributes.extend({ key: z.string() }) })),
    }),
  },
});
const listRoute = route({
  method: 'GET',
  path: '/v1/admin/projects',
  summary: 'List projects (platform admin only)',
  tag: 'Admin',
  auth: 'admin',
  list: listOf('projects', ADMIN_PROJECTS_LIST),
  responses: { 200: collectionSchema('projects', projectAttributes) },
});

@Controller()
export class AdminProjectsController extends BusController {
  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const { project, key } = await this.commands.execute(new CreateProject(body.name, commandContext(req, principal), body.workspaceId));
    // Run again after a crash lost the answer (DECISIONS 5): the key's secret was never stored, so it is not in it.
    if (key.key === null) return { data: projectResource(project), included: [apiKeyResource(key.doc)], meta: { key: 'Not shown: the answer that carried the first API key was lost in an outage, and the key is not stored, so it cannot be shown again.' } };
    return {
      data: projectResource(project),
      included: [apiKeyResource(key.doc, { key: key.key })],
    };
  }

  @ApiRoute(listRoute)
  async list(@Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListProjects(list));
    return listResult(items.map(projectResource), total);
  }
}
