import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { networkDatabases } from '../../../../libs/domain/networking/network-database.resource';
import type { JobResource } from '../../../../libs/domain/shared/job-resource';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { networkDatabasesProjection } from '../../../../projections/network-databases/network-databases.projection';
import { AttachNetworkDatabase, ListNetworkDatabases, networkDatabaseAttachments } from '../../../../usecases/networking/network-databases';
import { jobResourceAttributes } from '../common/job-resource.routes';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

const TYPE = networkDatabaseAttachments.type;
const PATH = '/v1/networking/{networkId}/db';

const params = z.object({ networkId: pathId });
const providerId = z.string().min(1).max(64).optional().describe("The network's provider (DECISIONS 14)");
const attributes = jobResourceAttributes(networkDatabases as unknown as JobResource);
const listRoute = route({
  method: 'GET',
  path: PATH,
  summary: "List the private network's database attachments",
  tag: 'Networking',
  auth: 'project',
  permission: 'networking:read',
  params,
  query: z.object({ providerId, status: z.enum(['creating', 'active', 'deleting', 'error']).optional(), region: z.string().min(1).max(64).optional() }),
  list: listOf(TYPE, networkDatabasesProjection.lists[0]!),
  responses: { 200: collectionSchema(TYPE, attributes) },
});
const attachRoute = route({
  method: 'POST',
  path: PATH,
  summary: 'Attach a managed database of the project to the private network (202, a network-database.create job)',
  tag: 'Networking',
  auth: 'project',
  permission: 'networking:write',
  type: TYPE,
  params,
  query: z.object({ providerId }),
  body: networkDatabases.schema.pick({ databaseId: true, privateIp: true, tags: true }),
  idempotent: true,
  responses: { 202: resourceSchema(TYPE, attributes, { jobId: z.string() }) },
});

@Controller()
export class NetworkDatabasesController extends BusController {
  @ApiRoute(listRoute)
  list(@CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof listRoute>) {
    return this.queries.execute(new ListNetworkDatabases({ projectId: dataScopeOf(principal), networkId: p.params.networkId, providerId: p.query.providerId, list: p.list }));
  }

  @ApiRoute(attachRoute)
  attach(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof attachRoute>) {
    return this.commands.execute(new AttachNetworkDatabase({ projectId: dataScopeOf(principal), networkId: p.params.networkId, providerId: p.query.providerId, body: p.body, context: commandContext(req, principal) }));
  }
}

