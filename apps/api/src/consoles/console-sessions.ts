import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CLOSE_REASONS, CONSOLE_PROTOCOLS, CONSOLE_RESOURCE_TYPES, consoleProtocol, type ConsoleResourceType } from '../../../../libs/domain/consoles/console-session';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema, toResource } from '../../../../libs/http/src/envelope';
import { listOf } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { CONSOLE_SESSIONS_LIST, type ConsoleSessionDoc } from '../../../../projections/console-sessions/console-sessions.projection';
import { BusController } from '../common/bus-controller';
import { dataScopeOf, pathId } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { CloseConsoleSession, GetConsoleSession, ListConsoleSessions, OpenConsoleSession } from '../../../../usecases/consoles/console-sessions';

/**
 * Console sessions (DECISIONS 23). The URL's one-time token is made here, handed to the provider's
 * driver and shown in the open's answer only: the events keep its SHA-256 hash, nothing keeps the URL.
 * The open is not keyed (no Idempotency-Key replay), since a replay would need the URL stored.
 */
const TYPE = 'console-sessions';
const sessionAttributes = z.object({
  resourceType: z.enum(CONSOLE_RESOURCE_TYPES),
  resourceId: z.string(),
  protocol: z.enum(CONSOLE_PROTOCOLS).describe('vnc for instances, ipmi-sol (IPMI serial-over-LAN) for servers'),
  expiresAt: z.string(),
  status: z.enum(['open', 'closed']),
  closedAt: z.string().nullable(),
  closeReason: z.enum(CLOSE_REASONS).nullable().describe('closed by a client, expired, or its resource stopped or was terminated'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const attributesOf = (d: ConsoleSessionDoc): z.output<typeof sessionAttributes> => ({
  resourceType: d.resourceType,
  resourceId: d.resourceId,
  protocol: d.protocol,
  expiresAt: d.expiresAt,
  status: d.status,
  closedAt: d.closedAt,
  closeReason: d.closeReason,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});


const common = { tag: 'Console sessions', auth: 'project' } as const;
const idParams = z.object({ id: pathId });
const opened = resourceSchema(TYPE, sessionAttributes.extend({ url: z.string().describe('Carries a one-time token: shown in this answer only, never again') }));
const openRoute = (resourceType: ConsoleResourceType, path: string) =>
  route({
    ...common,
    method: 'POST',
    path,
    summary: `Open a console session on an active ${resourceType} (${consoleProtocol(resourceType)}, 15 minutes); 409 INVALID_STATE otherwise`,
    description: 'The `url` carries a one-time token shown in this answer only (only its hash is kept): not keyed by Idempotency-Key, since a replay would need the URL stored.',
    permission: 'consoles:write',
    params: idParams,
    responses: { 201: opened },
  });
const openInstanceRoute = openRoute('instance', '/v1/instances/{id}/console');
const openServerRoute = openRoute('server', '/v1/servers/{id}/console');
const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/console-sessions',
  summary: 'List the console sessions of the project (without their URLs)',
  permission: 'consoles:read',
  query: z.object({ status: z.enum(['open', 'closed']).optional(), resourceId: z.string().min(1).max(1024).optional() }),
  list: listOf(TYPE, CONSOLE_SESSIONS_LIST),
  responses: { 200: collectionSchema(TYPE, sessionAttributes) },
});
const getRoute = route({ ...common, method: 'GET', path: '/v1/console-sessions/{id}', summary: 'Get a console session (without its URL)', permission: 'consoles:read', params: idParams, responses: { 200: resourceSchema(TYPE, sessionAttributes) } });
const closeRoute = route({
  ...common,
  method: 'DELETE',
  path: '/v1/console-sessions/{id}',
  summary: 'Close a console session (204); a closed one is 409 INVALID_STATE',
  permission: 'consoles:write',
  params: idParams,
  responses: { 204: null },
});

@Controller()
export class ConsoleSessionsController extends BusController {
  private async open(req: FastifyRequest, p: Principal, resourceType: ConsoleResourceType, id: string) {
    const { doc, url } = await this.commands.execute(new OpenConsoleSession(dataScopeOf(p), resourceType, id, commandContext(req, p)));
    return resource(TYPE, doc.id, { ...attributesOf(doc), url });
  }

  @ApiRoute(openInstanceRoute)
  openOnInstance(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof openInstanceRoute>['params']) {
    return this.open(req, p, 'instance', params.id);
  }

  @ApiRoute(openServerRoute)
  openOnServer(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof openServerRoute>['params']) {
    return this.open(req, p, 'server', params.id);
  }

  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListConsoleSessions(dataScopeOf(p), list));
    return listResult(items.map((d) => toResource(TYPE, d.id, attributesOf(d))), total);
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return resource(TYPE, params.id, attributesOf(await this.queries.execute(new GetConsoleSession(dataScopeOf(p), params.id))));
  }

  @ApiRoute(closeRoute)
  async close(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') params: RouteInput<typeof closeRoute>['params']) {
    await this.commands.execute(new CloseConsoleSession(dataScopeOf(p), params.id, commandContext(req, p)));
  }
}
