import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { listOf } from '../../../../libs/http/src/list-query';
import { EVENT_LISTS } from '../../../../projections/event-index/event-index.projection';
import { BusController } from '../common/bus-controller';
import { dataScopeOf } from '../common/resource-lifecycle';
import { cloudEventAttributes, eventResource } from './event-view';
import { ListEvents } from './events.handlers';

/** An ISO 8601 instant in any offset, compared in UTC. */
export const isoInstant = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

export const eventFilters = z.object({
  type: z
    .string()
    .max(128)
    .regex(/^[a-z][a-z0-9]*(\.[A-Za-z0-9]*)*$/, 'must be an event type or a prefix of one (e.g. compute, compute.Instance, compute.InstanceRequested.v1)')
    .optional()
    .describe('An event type, or a prefix of one: `compute` (a context), `compute.Instance`'),
  subject: z.string().min(1).max(200).optional().describe('The stream, e.g. `instance-<id>`'),
  from: isoInstant.optional().describe('Events committed at or after this instant'),
  to: isoInstant.optional().describe('Events committed at or before this instant'),
});

/** DECISIONS 20: the project's domain events, as the topics carry them. */
const listRoute = route({
  method: 'GET',
  path: '/v1/events',
  summary: "List the project's domain events, newest first (each the CloudEvent of the topics, its type as eventType)",
  description: 'Served from an index of the event log. A test key sees test-mode events only, a live key live ones (DECISIONS 21). `sort=time` for oldest first.',
  tag: 'Events',
  auth: 'project',
  permission: 'events:read',
  query: eventFilters,
  list: listOf('events', EVENT_LISTS, { rename: { time: 'position' } }),
  responses: { 200: collectionSchema('events', cloudEventAttributes) },
});

@Controller()
export class EventsController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListEvents(dataScopeOf(p), list.filters, list));
    return listResult(
      items.map((d) => eventResource(d.event)),
      total,
    );
  }
}
