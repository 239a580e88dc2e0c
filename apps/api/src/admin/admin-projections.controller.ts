import { Controller, Inject } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { AppError, notFound } from '../../../../libs/application/src/errors';
import type { Platform } from '../../../../libs/runtime/src/platform';
import type { SubscriptionStatus } from '../../../../libs/subscriptions/src/subscription-runner';
import { PLATFORM } from '../tokens';
import { BusController } from '../common/bus-controller';

type RebuildReport = Awaited<ReturnType<Platform['projections']['rebuild']>>;

export class ListSubscriptions extends Query<SubscriptionStatus[]> {}

/** Replays the whole log into a fresh collection of one read model, then switches reads to it. */
export class RebuildProjection extends Command<RebuildReport> {
  constructor(readonly name: string) {
    super();
  }
}

@QueryHandler(ListSubscriptions)
export class ListSubscriptionsHandler implements IQueryHandler<ListSubscriptions> {
  // An operator's use case over the runtime itself: its runners, nothing else.
  constructor(@Inject(PLATFORM) private readonly platform: Pick<Platform, 'allRunners'>) {}

  execute(): Promise<SubscriptionStatus[]> {
    return Promise.all(this.platform.allRunners().map((r) => r.status()));
  }
}

@CommandHandler(RebuildProjection)
export class RebuildProjectionHandler implements ICommandHandler<RebuildProjection> {
  // An operator's use case over the runtime itself: its role and its projection engine.
  constructor(@Inject(PLATFORM) private readonly platform: Pick<Platform, 'config' | 'projections'>) {}

  execute({ name }: RebuildProjection): Promise<RebuildReport> {
    if (this.platform.config.role === 'api') throw new AppError('CONFLICT', 'Projections run on the worker in this deployment; rebuild there');
    if (!this.platform.projections.projections.some((p) => p.name === name)) throw notFound(`Unknown projection ${name}`);
    return this.platform.projections.rebuild(name);
  }
}

export const ADMIN_HANDLERS = [ListSubscriptionsHandler, RebuildProjectionHandler];

const statusSchema = z.object({
  name: z.string(),
  position: z.number().int(),
  lagEvents: z.number().int(),
  lagMs: z.number(),
  errors: z.number().int(),
  lastError: z.string().nullable(),
});
const nameParams = z.object({ name: z.string().regex(/^[a-z_]{1,64}$/) });

/** Operator extension: subscription status and zero-downtime projection rebuilds. */
const listRoute = route({
  method: 'GET',
  path: '/v1/admin/subscriptions',
  summary: 'Checkpoint position and lag of every projection and relay (platform admin)',
  tag: 'Admin',
  auth: 'admin',
  responses: { 200: z.object({ data: z.array(z.object({ id: z.string(), type: z.literal('subscriptions'), attributes: statusSchema })) }) },
});
const rebuildRoute = route({
  method: 'POST',
  path: '/v1/admin/projections/{name}/rebuild',
  summary: 'Replay the whole event log into a fresh collection, then switch reads to it without downtime',
  tag: 'Admin',
  auth: 'admin',
  params: nameParams,
  responses: {
    200: z.object({
      data: z.object({
        id: z.string(),
        type: z.literal('projection-rebuilds'),
        attributes: z.object({ collection: z.string(), events: z.number().int(), ms: z.number(), eventsPerSec: z.number() }),
      }),
    }),
  },
});

@Controller()
export class AdminProjectionsController extends BusController {
  @ApiRoute(listRoute)
  async list() {
    const statuses = await this.queries.execute(new ListSubscriptions());
    return { data: statuses.map((s) => ({ id: s.name, type: 'subscriptions', attributes: s })) };
  }

  @ApiRoute(rebuildRoute)
  async rebuild(@Parsed('params') params: RouteInput<typeof rebuildRoute>['params']) {
    const report = await this.commands.execute(new RebuildProjection(params.name));
    return { data: { id: report.projection, type: 'projection-rebuilds', attributes: { collection: report.collection, events: report.events, ms: report.ms, eventsPerSec: report.eventsPerSec } } };
  }
}
