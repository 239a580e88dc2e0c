import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, Query, QueryBus, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { networkDatabaseId, networkDatabases, privateIpProblem, type NetworkDatabaseFields } from '../../../../libs/domain/networking/network-database.resource';
import type { JobResource } from '../../../../libs/domain/shared/job-resource';
import type { Principal } from '../../../../libs/http/src/auth';
import { unwrapBody } from '../../../../libs/http/src/body-shape';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { AppError, badRequest } from '../../../../libs/application/src/errors';
import type { ListResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { databasesProjection } from '../../../../projections/databases/databases.projection';
import { networkDatabasesProjection } from '../../../../projections/network-databases/network-databases.projection';
import { privateNetworksProjection, type PrivateNetworkDoc } from '../../../../projections/private-networks/private-networks.projection';
import { CreateJobResource, jobResourceAttributes, ListJobResources, type JobResourceRoutes } from '../common/job-resource.routes';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { ownDoc } from '../../../../usecases/jobs/job-writes';
import { requireSameProvider } from '../../../../usecases/providers/resolve-provider';
import { PORTS } from '../tokens';
import { BusController } from '../common/bus-controller';
import type { PortsOf } from '../../../../libs/runtime/src/ports';
import { listOf } from '../../../../libs/http/src/list-query';

const NETWORK = 'Private network';
/** Networks that take attachments: live, and not waiting for their create. */
const ATTACHABLE = ['active', 'attaching'];

/**
 * Network database attachments (spec 4.8, DECISIONS 14): a managed database of the project, in the
 * network's region, at a free host address of the network's range; each a job (network-database.create)
 * on the network's provider. The declared resource's create and list, scoped to the network.
 */
const attachments: JobResourceRoutes<typeof networkDatabases.schema> = {
  resource: networkDatabases,
  projection: networkDatabasesProjection,
  type: 'network-databases',
  path: '/v1/networking/{networkId}/db',
  tag: 'Networking',
  permission: 'networking',
  capability: 'network-databases',
  summaries: { list: "List the private network's database attachments", create: 'Attach a managed database of the project to the private network (202, a network-database.create job)' },
  async prepare({ platform, projectId, body, pointerPrefix }) {
    const network = await ownDoc(platform, privateNetworksProjection, projectId, String(body.networkId), NETWORK);
    if (!ATTACHABLE.includes(network.status)) throw new AppError('INVALID_STATE', `Private network ${network.id} is ${network.status}; databases attach to an active network`);
    const database = await (await platform.projections.collection(databasesProjection)).get(String(body.databaseId));
    if (!database || database.projectId !== projectId || database.status === 'deleting') {
      throw new AppError('NOT_FOUND', `Database ${String(body.databaseId)} not found`, { source: { pointer: `${pointerPrefix}/databaseId` } });
    }
    if (database.status !== 'active') throw new AppError('INVALID_STATE', `Database ${database.id} is ${database.status}; only an active database can be attached`, { source: { pointer: `${pointerPrefix}/databaseId` } });
    if (database.region !== network.region) {
      throw new AppError('INVALID_REGION', `Database ${database.id} is in ${database.region}; the private network is in ${network.region}`, { source: { pointer: `${pointerPrefix}/databaseId` } });
    }
    const problem = privateIpProblem(network.cidr, String(body.privateIp));
    if (problem) throw badRequest([{ detail: problem, source: { pointer: `${pointerPrefix}/privateIp` } }]);
    const { items } = await (await platform.projections.collection(networkDatabasesProjection)).find({ filter: { networkId: network.id, databaseId: database.id }, limit: 1, withTotal: false });
    if (items[0]) throw new AppError('CONFLICT', `Database ${database.id} is already attached to private network ${network.id} at ${items[0].privateIp}`, { source: { pointer: `${pointerPrefix}/databaseId` } });
    return { networkId: network.id, databaseId: database.id, privateIp: String(body.privateIp), region: network.region, tags: (body.tags as NetworkDatabaseFields['tags']) ?? [] };
  },
  idFor: (_projectId, _providerId, fields) => networkDatabaseId(fields.networkId, fields.privateIp),
};

/** The network of a request: the project's (404 otherwise), on the provider named, if one is. */
async function networkOf(ports: PortsOf<'projections'>, principal: Principal | null, networkId: string, providerId: string | undefined): Promise<PrivateNetworkDoc> {
  const network = await ownDoc(ports, privateNetworksProjection, dataScopeOf(principal), networkId, NETWORK);
  requireSameProvider(network.providerId, providerId, NETWORK);
  return network;
}

type Call = { principal: Principal | null; networkId: string; providerId?: string };
type Accepted = { data: { id: string; type: string; attributes: Record<string, unknown> }; jobId: string };

export class AttachNetworkDatabase extends Command<Accepted> {
  constructor(readonly call: Call & { body: Record<string, unknown>; pointerPrefix: string; context: CommandContext }) {
    super();
  }
}

@CommandHandler(AttachNetworkDatabase)
export class AttachNetworkDatabaseHandler implements ICommandHandler<AttachNetworkDatabase> {
  constructor(
    @Inject(PORTS) private readonly ports: PortsOf<'projections'>,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ call }: AttachNetworkDatabase): Promise<Accepted> {
    const network = await networkOf(this.ports, call.principal, call.networkId, call.providerId);
    // The network's provider runs the attachment.
    return this.commands.execute(new CreateJobResource(attachments as unknown as JobResourceRoutes, { ...call, providerId: network.providerId, body: { ...call.body, networkId: network.id } }));
  }
}

export class ListNetworkDatabases extends Query<ListResult<object>> {
  constructor(readonly call: Call & { list: RouteInput<typeof listRoute>['list'] }) {
    super();
  }
}

@QueryHandler(ListNetworkDatabases)
export class ListNetworkDatabasesHandler implements IQueryHandler<ListNetworkDatabases> {
  constructor(
    @Inject(PORTS) private readonly ports: PortsOf<'projections'>,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  async execute({ call }: ListNetworkDatabases): Promise<ListResult<object>> {
    const network = await networkOf(this.ports, call.principal, call.networkId, call.providerId);
    return this.queries.execute(new ListJobResources(attachments as unknown as JobResourceRoutes, { principal: call.principal, list: call.list, scope: { networkId: network.id } }));
  }
}

export const NETWORK_DATABASE_HANDLERS = [AttachNetworkDatabaseHandler, ListNetworkDatabasesHandler];

const params = z.object({ networkId: pathId });
const providerId = z.string().min(1).max(64).optional().describe("The network's provider (DECISIONS 14)");
const attributes = jobResourceAttributes(attachments.resource as unknown as JobResource);
const listRoute = route({
  method: 'GET',
  path: attachments.path,
  summary: attachments.summaries.list,
  tag: attachments.tag,
  auth: 'project',
  permission: 'networking:read',
  params,
  query: z.object({ providerId, status: z.enum(['creating', 'active', 'deleting', 'error']).optional(), region: z.string().min(1).max(64).optional() }),
  list: listOf(attachments.type, networkDatabasesProjection.lists[0]!),
  responses: { 200: collectionSchema(attachments.type, attributes) },
});
const attachRoute = route({
  method: 'POST',
  path: attachments.path,
  summary: attachments.summaries.create!,
  tag: attachments.tag,
  auth: 'project',
  permission: 'networking:write',
  type: attachments.type,
  params,
  query: z.object({ providerId }),
  body: networkDatabases.schema.pick({ databaseId: true, privateIp: true, tags: true }),
  idempotent: true,
  responses: { 202: resourceSchema(attachments.type, attributes, { jobId: z.string() }) },
});

@Controller()
export class NetworkDatabasesController extends BusController {
  @ApiRoute(listRoute)
  list(@CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof listRoute>) {
    return this.queries.execute(new ListNetworkDatabases({ principal, networkId: p.params.networkId, providerId: p.query.providerId, list: p.list }));
  }

  @ApiRoute(attachRoute)
  attach(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof attachRoute>) {
    const { pointerPrefix } = unwrapBody(req.body, attachments.type);
    return this.commands.execute(new AttachNetworkDatabase({ principal, networkId: p.params.networkId, providerId: p.query.providerId, body: p.body, pointerPrefix, context: commandContext(req, principal) }));
  }
}
