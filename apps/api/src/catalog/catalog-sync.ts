import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requestScopedId, handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { jobDecider } from '../../../../libs/domain/jobs/job.decider';
import { jobStream } from '../../../../libs/domain/jobs/events';
import { PROVIDER_KINDS } from '../../../../libs/domain/providers/events';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { resourceSchema } from '../../../../libs/http/src/envelope';
import { AppError } from '../../../../libs/application/src/errors';
import { jobsProjection, type JobDoc } from '../../../../projections/jobs/jobs.projection';
import { providersProjection } from '../../../../projections/providers/providers.projection';
import { commandContext } from '../identity/request-context';
import { jobAttributes, jobResource } from '../jobs/job-view';
import { PORTS } from '../tokens';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

/** Refresh a provider's catalog: a `catalog.sync` job (the catalog context's job handler runs it). */
export class SyncCatalog extends Command<JobDoc> {
  constructor(
    readonly providerRef: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SyncCatalog)
export class SyncCatalogHandler implements ICommandHandler<SyncCatalog> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ providerRef, context }: SyncCatalog): Promise<JobDoc> {
    let kind = PROVIDER_KINDS.find((k) => k === providerRef);
    if (!kind) {
      const provider = await (await this.ports.projections.collection(providersProjection)).get(providerRef);
      if (!provider || provider.deletedAt) throw new AppError('PROVIDER_NOT_FOUND', `Provider ${providerRef} not found`);
      kind = provider.name;
    }
    const jobId = requestScopedId(context, 'job');
    const job = { jobId, projectId: null, type: 'catalog.sync' as const, resourceType: 'catalog' as const, resourceId: kind, operation: 'sync', payload: { providerKind: kind }, maxAttempts: 3, enqueuedAt: this.ports.now() };
    const enqueued = await handleCommand(this.ports.events, jobStream(jobId), jobDecider, { type: 'EnqueueJob', job }, context, { newStream: true });
    await this.ports.waitForProjections(enqueued.position, [jobsProjection.name]);
    return (await this.ports.readBack(jobsProjection, jobStream(jobId), jobId, enqueued.position))!;
  }
}

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
