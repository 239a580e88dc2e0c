import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { handleCommand } from '../../../../libs/eventstore/src/handle-command';
import { jobDecider } from '../../../../libs/domain/jobs/job.decider';
import { jobStream } from '../../../../libs/domain/jobs/events';
import { PROVIDER_KINDS } from '../../../../libs/domain/providers/events';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiError } from '../../../../libs/http/src/errors';
import { jobsProjection } from '../../../../projections/jobs/jobs.projection';
import { providersProjection } from '../../../../projections/providers/providers.projection';
import { commandContext } from '../identity/request-context';
import { jobAttributes, jobResource } from '../jobs/job-view';
import { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';

const params = z.object({ providerId: z.string().min(1).max(64) });

/** `POST /v1/admin/catalog/sync/{providerId}`: refreshes a provider's catalog as a job. */
@Controller()
export class CatalogSyncController {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  @ApiRoute({
    method: 'POST',
    path: '/v1/admin/catalog/sync/{providerId}',
    summary: "Refresh a provider's catalog through its driver, as a job (providerId: a provider id or kind)",
    tag: 'Admin',
    auth: 'admin',
    params,
    idempotent: true,
    responses: { 202: resourceSchema('jobs', jobAttributes, { jobId: z.string() }) },
  })
  async sync(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('params') { providerId }: z.infer<typeof params>) {
    let kind = PROVIDER_KINDS.find((k) => k === providerId);
    if (!kind) {
      const provider = await (await this.platform.projections.collection(providersProjection)).get(providerId);
      if (!provider || provider.deletedAt) throw new ApiError('PROVIDER_NOT_FOUND', `Provider ${providerId} not found`);
      kind = provider.name;
    }
    const jobId = uuidv7();
    const ctx = commandContext(req, p);
    const enqueued = await handleCommand(
      this.platform.events,
      jobStream(jobId),
      jobDecider,
      {
        type: 'EnqueueJob',
        job: { jobId, projectId: null, type: 'catalog.sync', resourceType: 'catalog', resourceId: kind, operation: 'sync', payload: { providerKind: kind }, maxAttempts: 3, enqueuedAt: new Date().toISOString() },
      },
      ctx,
    );
    await this.platform.waitForProjections(enqueued.position, ['jobs']);
    const job = await this.platform.readBack(jobsProjection, jobStream(jobId), jobId, enqueued.position);
    return { data: jobResource(job!), jobId };
  }
}
