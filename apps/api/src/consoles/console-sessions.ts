import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { AppError } from '../../../../libs/application/src/errors';
import { CLOSE_REASONS, CONSOLE_PROTOCOLS, CONSOLE_RESOURCE_TYPES, CONSOLE_SESSION_TTL_MS, consoleProtocol, consoleSessionDecider, consoleSessionStream, type ConsoleResourceType } from '../../../../libs/domain/consoles/console-session';
import { modeOfScope } from '../../../../libs/domain/shared/scope';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema, toResource } from '../../../../libs/http/src/envelope';
import { listOf, type ListQuery } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Filter } from '../../../../libs/readstore/src/read-store.port';
import type { PortsOf } from '../../../../libs/runtime/src/ports';
import { CONSOLE_SESSIONS_LIST, consoleSessionsProjection, type ConsoleSessionDoc } from '../../../../projections/console-sessions/console-sessions.projection';
import { instancesProjection } from '../../../../projections/instances/instances.projection';
import { serversProjection } from '../../../../projections/servers/servers.projection';
import { closeConsoleSession } from '../../../../usecases/consoles/close-console-session';
import { BusController } from '../common/bus-controller';
import { dataScopeOf, pathId } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { ownDoc } from '../../../../usecases/jobs/job-writes';
import { PORTS } from '../tokens';

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

export class OpenConsoleSession extends Command<{ doc: ConsoleSessionDoc; url: string }> {
  constructor(
    readonly projectId: string,
    readonly resourceType: ConsoleResourceType,
    readonly resourceId: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}
export class CloseConsoleSession extends Command<void> {
  constructor(
    readonly projectId: string,
    readonly sessionId: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}
export class GetConsoleSession extends Query<ConsoleSessionDoc> {
  constructor(
    readonly projectId: string,
    readonly sessionId: string,
  ) {
    super();
  }
}
export class ListConsoleSessions extends Query<{ items: ConsoleSessionDoc[]; total: number }> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ status?: string; resourceId?: string }>,
  ) {
    super();
  }
}

const ownSession = (ports: PortsOf<'projections'>, projectId: string, id: string) => ownDoc(ports, consoleSessionsProjection, projectId, id, 'Console session');

/** The resource (404 when not the project's), the session recorded (409 unless it is active), then the provider's URL. */
@CommandHandler(OpenConsoleSession)
export class OpenConsoleSessionHandler implements ICommandHandler<OpenConsoleSession> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'clock' | 'drivers' | 'events' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, resourceType, resourceId, ctx }: OpenConsoleSession) {
    const machine = resourceType === 'instance' ? await ownDoc(this.ports, instancesProjection, projectId, resourceId, 'Instance') : await ownDoc(this.ports, serversProjection, projectId, resourceId, 'Server');
    const driver = this.ports.drivers.get(machine.providerKind, modeOfScope(projectId));
    if (!driver.consoleUrl) throw new AppError('UNSUPPORTED_PROVIDER', `Provider ${machine.providerKind} offers no console`);
    const sessionId = uuidv7();
    const token = randomBytes(32).toString('base64url');
    const now = this.ports.clock.now();
    const expiresAt = new Date(now + CONSOLE_SESSION_TTL_MS).toISOString();
    const command = {
      type: 'OpenConsoleSession' as const,
      sessionId,
      projectId,
      resourceType,
      resourceId,
      resourceStatus: machine.status,
      tokenHash: createHash('sha256').update(token).digest('hex'),
      expiresAt,
      now: new Date(now).toISOString(),
      openedBy: String(ctx.metadata.actor ?? 'unknown'),
    };
    const r = await handleCommand(this.ports.events, consoleSessionStream(sessionId), consoleSessionDecider, command, ctx, { newStream: true });
    let url: string;
    try {
      url = await driver.consoleUrl(machine.externalId ?? machine.id, { protocol: consoleProtocol(resourceType), token, expiresAt });
    } catch (err) {
      // The provider gave no console: the session recorded for it closes at once.
      await closeConsoleSession(this.ports, { sessionId, reason: 'closed', closedBy: 'system:console-sessions' }, ctx);
      throw new AppError('UNAVAILABLE', `The provider could not open a console: ${(err as Error).message}`);
    }
    await this.ports.waitForProjections(r.position, [consoleSessionsProjection.name]);
    const doc = await this.ports.readBack(consoleSessionsProjection, consoleSessionStream(sessionId), sessionId, r.position);
    if (!doc) throw new AppError('UNAVAILABLE', 'The console session is not readable yet');
    return { doc, url };
  }
}

@CommandHandler(CloseConsoleSession)
export class CloseConsoleSessionHandler implements ICommandHandler<CloseConsoleSession> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'clock' | 'events' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, sessionId, ctx }: CloseConsoleSession): Promise<void> {
    await ownSession(this.ports, projectId, sessionId);
    const position = await closeConsoleSession(this.ports, { sessionId, reason: 'closed', closedBy: String(ctx.metadata.actor ?? 'unknown'), strict: true }, ctx);
    await this.ports.waitForProjections(position, [consoleSessionsProjection.name]);
  }
}

@QueryHandler(GetConsoleSession)
export class GetConsoleSessionHandler implements IQueryHandler<GetConsoleSession> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, sessionId }: GetConsoleSession) {
    return ownSession(this.ports, projectId, sessionId);
  }
}

@QueryHandler(ListConsoleSessions)
export class ListConsoleSessionsHandler implements IQueryHandler<ListConsoleSessions> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListConsoleSessions) {
    const filter: Filter = { projectId };
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.resourceId) filter.resourceId = list.filters.resourceId;
    return (await this.ports.projections.collection(consoleSessionsProjection)).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
  }
}

export const CONSOLE_SESSION_HANDLERS = [OpenConsoleSessionHandler, CloseConsoleSessionHandler, GetConsoleSessionHandler, ListConsoleSessionsHandler];

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
