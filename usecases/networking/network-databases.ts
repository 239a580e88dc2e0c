import { Command, CommandBus, CommandHandler, Query, QueryBus, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { networkDatabaseId, networkDatabases, privateIpProblem, type NetworkDatabaseFields } from '../../libs/domain/networking/network-database.resource';
import { AppError, badRequest } from '../../libs/application/src/errors';
import type { ListQuery, ListResult } from '../../libs/application/src/views';
import type { CommandContext } from '../../libs/eventstore/src/handle-command';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { databasesProjection } from '../../projections/databases/databases.projection';
import { networkDatabasesProjection } from '../../projections/network-databases/network-databases.projection';
import { privateNetworksProjection, type PrivateNetworkDoc } from '../../projections/private-networks/private-networks.projection';
import { InjectPorts } from '../inject-ports';
import { ownDoc } from '../jobs/job-writes';
import { requireSameProvider } from '../providers/resolve-provider';
import { CreateJobResource, ListJobResources, type Accepted, type JobResourceUseCase } from '../resources/job-resources';

const NETWORK = 'Private network';
/** Networks that take attachments: live, and not waiting for their create. */
const ATTACHABLE = ['active', 'attaching'];

/**
 * Network database attachments (spec 4.8, DECISIONS 14): a managed database of the project, in the
 * network's region, at a free host address of the network's range; each a job (network-database.create)
 * on the network's provider. The declared resource's create and list, scoped to the network.
 */
export const networkDatabaseAttachments: JobResourceUseCase<typeof networkDatabases.schema> = {
  resource: networkDatabases,
  projection: networkDatabasesProjection,
  type: 'network-databases',
  capability: 'network-databases',
  async prepare({ ports, projectId, body }) {
    const network = await ownDoc(ports, privateNetworksProjection, projectId, String(body.networkId), NETWORK);
    if (!ATTACHABLE.includes(network.status)) throw new AppError('INVALID_STATE', `Private network ${network.id} is ${network.status}; databases attach to an active network`);
    const database = await (await ports.projections.collection(databasesProjection)).get(String(body.databaseId));
    if (!database || database.projectId !== projectId || database.status === 'deleting') {
      throw new AppError('NOT_FOUND', `Database ${String(body.databaseId)} not found`, { source: { pointer: '/databaseId' } });
    }
    if (database.status !== 'active') throw new AppError('INVALID_STATE', `Database ${database.id} is ${database.status}; only an active database can be attached`, { source: { pointer: '/databaseId' } });
    if (database.region !== network.region) {
      throw new AppError('INVALID_REGION', `Database ${database.id} is in ${database.region}; the private network is in ${network.region}`, { source: { pointer: '/databaseId' } });
    }
    const problem = privateIpProblem(network.cidr, String(body.privateIp));
    if (problem) throw badRequest([{ detail: problem, source: { pointer: '/privateIp' } }]);
    const { items } = await (await ports.projections.collection(networkDatabasesProjection)).find({ filter: { networkId: network.id, databaseId: database.id }, limit: 1, withTotal: false });
    if (items[0]) throw new AppError('CONFLICT', `Database ${database.id} is already attached to private network ${network.id} at ${items[0].privateIp}`, { source: { pointer: '/databaseId' } });
    return { networkId: network.id, databaseId: database.id, privateIp: String(body.privateIp), region: network.region, tags: (body.tags as NetworkDatabaseFields['tags']) ?? [] };
  },
  idFor: (_projectId, _providerId, fields) => networkDatabaseId(fields.networkId, fields.privateIp),
};
const attachments = networkDatabaseAttachments as unknown as JobResourceUseCase;

/** The network of a request: the project's (404 otherwise), on the provider named, if one is. */
async function networkOf(ports: PortsOf<'projections'>, projectId: string, networkId: string, providerId: string | undefined): Promise<PrivateNetworkDoc> {
  const network = await ownDoc(ports, privateNetworksProjection, projectId, networkId, NETWORK);
  requireSameProvider(network.providerId, providerId, NETWORK);
  return network;
}

/** Who asks (the data scope it acts in), for which network, on the provider it names, if any. */
type Call = { projectId: string; networkId: string; providerId?: string };

export class AttachNetworkDatabase extends Command<Accepted> {
  constructor(readonly call: Call & { body: Record<string, unknown>; context: CommandContext }) {
    super();
  }
}

@CommandHandler(AttachNetworkDatabase)
export class AttachNetworkDatabaseHandler implements ICommandHandler<AttachNetworkDatabase> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'projections'>,
    private readonly commands: CommandBus,
  ) {}

  async execute({ call }: AttachNetworkDatabase): Promise<Accepted> {
    const network = await networkOf(this.ports, call.projectId, call.networkId, call.providerId);
    // The network's provider runs the attachment.
    return this.commands.execute(new CreateJobResource(attachments, { ...call, providerId: network.providerId, body: { ...call.body, networkId: network.id } }));
  }
}

export class ListNetworkDatabases extends Query<ListResult<object>> {
  constructor(readonly call: Call & { list: ListQuery<{ status?: string; region?: string }> }) {
    super();
  }
}

@QueryHandler(ListNetworkDatabases)
export class ListNetworkDatabasesHandler implements IQueryHandler<ListNetworkDatabases> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'projections'>,
    private readonly queries: QueryBus,
  ) {}

  async execute({ call }: ListNetworkDatabases): Promise<ListResult<object>> {
    const network = await networkOf(this.ports, call.projectId, call.networkId, call.providerId);
    return this.queries.execute(new ListJobResources(attachments, { projectId: call.projectId, list: call.list, scope: { networkId: network.id } }));
  }
}

export const NETWORK_DATABASE_HANDLERS = [AttachNetworkDatabaseHandler, ListNetworkDatabasesHandler];
