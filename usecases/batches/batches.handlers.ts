import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { batchDecider } from '../../libs/domain/batches/batch.decider';
import { batchStream, type BatchAction } from '../../libs/domain/batches/events';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { notFound } from '../../libs/application/src/errors';
import { batchesProjection, type BatchDoc } from '../../projections/batches/batches.projection';
import { batchOutcome } from './batch-view';
import type { PortsOf } from '../../libs/runtime/src/ports';

export type BatchView = { doc: BatchDoc; outcome: Awaited<ReturnType<typeof batchOutcome>> };

export class RequestBatch extends Command<BatchView> {
  constructor(readonly projectId: string, readonly action: BatchAction, readonly resourceType: 'instances' | 'servers', readonly resourceIds: string[], readonly ctx: CommandContext) {
    super();
  }
}
export class GetBatch extends Query<BatchView> {
  constructor(readonly projectId: string, readonly batchId: string) {
    super();
  }
}

/** The fan-out is part of the write: answers once every item is dispatched or rejected. */
@CommandHandler(RequestBatch)
export class RequestBatchHandler implements ICommandHandler<RequestBatch> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'now' | 'projections' | 'readBack'>) {}

  async execute({ projectId, action, resourceType, resourceIds, ctx }: RequestBatch): Promise<BatchView> {
    const batchId = requestScopedId(ctx, 'batch');
    const command = { type: 'RequestBatch' as const, batchId, projectId, action, resourceType, resourceIds, now: this.ports.now() };
    const r = await handleCommand(this.ports.events, batchStream(batchId), batchDecider, command, ctx);
    await this.ports.consistency.waitForSaga('saga:batch-fanout', r.position!, batchStream(batchId), ['batches']);
    const doc = (await this.ports.readBack(batchesProjection, batchStream(batchId), batchId, null))!;
    return { doc, outcome: await batchOutcome(this.ports, doc) };
  }
}

@QueryHandler(GetBatch)
export class GetBatchHandler implements IQueryHandler<GetBatch> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, batchId }: GetBatch): Promise<BatchView> {
    const doc = await (await this.ports.projections.collection(batchesProjection)).get(batchId);
    if (!doc || doc.projectId !== projectId) throw notFound('Batch not found');
    return { doc, outcome: await batchOutcome(this.ports, doc) };
  }
}

export const BATCH_HANDLERS = [RequestBatchHandler, GetBatchHandler];
