import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { ListSubscriptions, RebuildProjection } from '../../../../usecases/admin/projections';
import { BusController } from '../common/bus-controller';

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
