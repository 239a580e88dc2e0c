import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { jobDecider } from '../../libs/domain/jobs/job.decider';
import { jobStream } from '../../libs/domain/jobs/events';
import { PROVIDER_KINDS } from '../../libs/domain/providers/events';
import { AppError } from '../../libs/application/src/errors';
import { jobsProjection, type JobDoc } from '../../projections/jobs/jobs.projection';
import { providersProjection } from '../../projections/providers/providers.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { InjectPorts } from '../inject-ports';

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
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

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
