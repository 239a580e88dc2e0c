import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { AppError, notFound } from '../../libs/application/src/errors';
import type { RebuildReport } from '../../libs/subscriptions/src/projection-engine';
import type { SubscriptionStatus } from '../../libs/subscriptions/src/subscription-runner';
import { InjectOperator } from '../inject-ports';

/**
 * What an operator's use cases see of the runtime (implemented by libs/runtime/src/operator.ts): its
 * subscriptions with their checkpoints, and a rebuild of one read model; never the runtime itself.
 */
export interface ProjectionOperatorPort {
  /** Every subscription of this process (projections, process managers, relays): checkpoint, lag, errors. */
  subscriptions(): Promise<SubscriptionStatus[]>;
  /** Whether this process runs the projections (an API node of a split deployment leaves them to the worker). */
  readonly runsProjections: boolean;
  /** The read models' names. */
  projectionNames(): readonly string[];
  /** Replays the whole log into a fresh collection of the read model, then switches reads to it. */
  rebuild(name: string): Promise<RebuildReport>;
}

export type { RebuildReport };

export class ListSubscriptions extends Query<SubscriptionStatus[]> {}

/** Replays the whole log into a fresh collection of one read model, then switches reads to it. */
export class RebuildProjection extends Command<RebuildReport> {
  constructor(readonly name: string) {
    super();
  }
}

@QueryHandler(ListSubscriptions)
export class ListSubscriptionsHandler implements IQueryHandler<ListSubscriptions> {
  constructor(@InjectOperator() private readonly operator: Pick<ProjectionOperatorPort, 'subscriptions'>) {}

  execute(): Promise<SubscriptionStatus[]> {
    return this.operator.subscriptions();
  }
}

@CommandHandler(RebuildProjection)
export class RebuildProjectionHandler implements ICommandHandler<RebuildProjection> {
  constructor(@InjectOperator() private readonly operator: Pick<ProjectionOperatorPort, 'runsProjections' | 'projectionNames' | 'rebuild'>) {}

  execute({ name }: RebuildProjection): Promise<RebuildReport> {
    if (!this.operator.runsProjections) throw new AppError('CONFLICT', 'Projections run on the worker in this deployment; rebuild there');
    if (!this.operator.projectionNames().includes(name)) throw notFound(`Unknown projection ${name}`);
    return this.operator.rebuild(name);
  }
}

export const PROJECTION_OPERATOR_HANDLERS = [ListSubscriptionsHandler, RebuildProjectionHandler];
