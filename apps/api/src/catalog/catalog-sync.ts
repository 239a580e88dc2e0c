import { Controller, Inject, Req } from '@nestjs/common';
import { CommandBus } from '../common/bus-controller';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { resourceSchema } from '../../../../libs/http/src/envelope';
import { SyncCatalog } from '../../../../usecases/catalog/sync-catalog';
import { commandContext } from '../identity/request-context';
import { jobAttributes, jobResource } from '../jobs/job-view';

const params = z.object({ providerId: z.string().min(1).max(64) });

/** `POST /v1/admin/catalog/sync/{providerId}`: refreshes a provider's catalog as a job. */
const syncRoute = route({
  method: 'POST',
  path: '/v1/admin/catalog/sync/{providerId}',
  summary: "Refresh a provider's catalog through its driver, as a job (providerId: a provider id or kind)",
  tag: 'Admin',
  auth: 'admin',
  params,
  idempotent: true,
  responses: { 202: resourceSchema('jobs', jobAttributes, { jobId: z.string() }) },
});

@Controller()
export class CatalogSyncController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @ApiRoute(syncRoute)
  async sync(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') { providerId }: RouteInput<typeof syncRoute>['params']) {
    const job = await this.commands.execute(new SyncCatalog(providerId, commandContext(req, p)));
    return { data: jobResource(job), jobId: job.id };
  }
}
