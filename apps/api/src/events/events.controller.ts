import { Controller, Inject, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '../common/bus-controller';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../libs/application/src/errors';
import { asyncApiDocument } from './asyncapi';
import { EventStreams, type StreamSelection, type StreamSubscription } from './event-streams';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { isProjectPrincipal, type Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { listOf } from '../../../../libs/http/src/list-query';
import { EVENT_LISTS } from '../../../../projections/event-index/event-index.projection';
import { BusController } from '../common/bus-controller';
import { dataScopeOf } from '../common/resource-lifecycle';
import { cloudEventAttributes, eventResource } from './event-view';
import { ListEvents } from '../../../../usecases/events/list-events';
import { EventTickets, TICKET_TTL_MS } from './event-tickets';
import { socketRoute } from './event-socket';
import { isoInstant, position, subjectFilter, typeFilter, typeFilterOf, typeList } from './event-filters';

export const eventFilters = z.object({
  type: typeFilter.optional(),
  subject: subjectFilter.optional(),
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

const streamQuery = z.object({
  after: position.optional().describe('Resume right after this position (what `Last-Event-ID` says; for browsers, whose EventSource sends no header on its first connect)'),
  from: position.optional().describe('The same as `after`'),
  type: typeList.optional(),
  subject: subjectFilter.optional(),
});

const streamRoute = route({
  method: 'GET',
  path: '/v1/events/stream',
  summary: "Follow the project's events live (server-sent events): `id` is the event's position, `data` its CloudEvent",
  description:
    'Starts at the next event, or right after `Last-Event-ID` (or `?after=`). A comment `: heartbeat` comes every 15 s; while a filter matches nothing, ' +
    'a frame with only an `id:` (the position reached) comes at least as often, so that reconnecting with the last id loses and repeats nothing. ' +
    'A position beyond the newest event: 400 INVALID_QUERY.',
  tag: 'Events',
  auth: 'project',
  permission: 'events:read',
  query: streamQuery,
  produces: 'text/event-stream',
  responses: { 200: z.string().describe('`id: <position>` and `data: <CloudEvent JSON>` frames, `: heartbeat` comments, id-only frames') },
});

const ticketRoute = route({
  method: 'POST',
  path: '/v1/events/tickets',
  summary: 'Get a one-time ticket for the WebSocket stream (browsers cannot send credentials on a WebSocket)',
  description:
    `Connect to \`${socketRoute.path}?ticket=<ticket>\` within ${TICKET_TTL_MS / 1000} s. A ticket works once, reads the events of this key's project and mode only ` +
    '(`events:read`, whatever the role of the key that asked for it), and is never stored or logged; being a credential, it is not replayed by `Idempotency-Key` either.',
  tag: 'Events',
  auth: 'project',
  permission: 'events:read',
  responses: {
    201: resourceSchema(
      'event-tickets',
      z.object({
        ticket: z.string().describe('Pass as `?ticket=` to the WebSocket stream'),
        expiresAt: z.string().describe('ISO 8601 UTC; the ticket is refused from then on'),
        url: z.string().describe('The WebSocket path with the ticket'),
      }),
    ),
  },
});

const asyncApiRoute = route({
  method: 'GET',
  path: '/v1/asyncapi.json',
  summary: 'The AsyncAPI 3 document of the event topics: one channel per context, one message per event type (CloudEvents, with the Kafka headers)',
  tag: 'Events',
  auth: 'none',
  responses: { 200: z.record(z.string(), z.unknown()).describe('An AsyncAPI 3.0 document') },
});

const LAST_EVENT_ID = /^\d{1,15}$/;
/** A slow reader is cut off rather than buffered without bound: it reconnects with its last id. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

@Controller()
export class EventsController extends BusController {
  constructor(
    @Inject(CommandBus) commands: CommandBus,
    @Inject(QueryBus) queries: QueryBus,
    @Inject(EventStreams) private readonly streams: EventStreams,
    @Inject(EventTickets) private readonly tickets: EventTickets,
  ) {
    super(commands, queries);
  }

  @ApiRoute(asyncApiRoute)
  asyncApi() {
    return (this.asyncApiDoc ??= asyncApiDocument({ topicPrefix: this.streams.topicPrefix, brokers: this.streams.brokers }));
  }

  private asyncApiDoc?: Record<string, unknown>;

  @ApiRoute(streamRoute)
  async stream(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @CurrentPrincipal() p: Principal, @Parsed('query') q: RouteInput<typeof streamRoute>['query']) {
    const header = req.headers['last-event-id'];
    const lastEventId = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined;
    if (lastEventId !== undefined && !LAST_EVENT_ID.test(lastEventId)) throw new AppError('INVALID_QUERY', 'Last-Event-ID must be a position (a whole number)', { source: { header: 'Last-Event-ID' } });
    const asked = lastEventId !== undefined ? Number(lastEventId) : (q.after ?? q.from);
    const after = await this.streams.startAfter(asked, lastEventId !== undefined ? 'Last-Event-ID' : q.after !== undefined ? 'after' : 'from');
    const selection: StreamSelection = { scope: dataScopeOf(p), types: q.type?.map(typeFilterOf), subject: q.subject };

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { ...(reply.getHeaders() as Record<string, string | string[] | number>), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    let sent = after;
    let closed = false;
    const write = (frame: string) => {
      // Ended by the API's shutdown (`end`) before its 'close' event: a heartbeat then must not write.
      if (closed || res.writableEnded || res.destroyed) return;
      if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
      else res.write(frame);
    };
    write(': connected\n\n');
    let subscription: StreamSubscription | null = null;
    res.on('close', () => {
      closed = true;
      subscription?.close();
    });
    let pending = '';
    subscription = await this.streams.subscribe(selection, after, {
      event: (position, e) => {
        pending += `id: ${position}\ndata: ${e.cloudEventJson()}\n\n`;
        sent = position;
      },
      flush: () => {
        if (pending) write(pending);
        pending = '';
      },
      tick: (reached) => {
        // An id-only frame moves the client's Last-Event-ID past events it was not sent (a sparse filter stays resumable).
        if (reached > sent) write(`id: ${reached}\n\n`);
        sent = Math.max(sent, reached);
        write(': heartbeat\n\n');
      },
      end: () => res.end(),
    });
    if (closed) subscription.close();
  }

  @ApiRoute(ticketRoute)
  ticket(@CurrentPrincipal() p: Principal) {
    if (!isProjectPrincipal(p)) throw new AppError('FORBIDDEN', 'This route requires a project credential');
    const t = this.tickets.issue(p);
    return resource('event-tickets', t.nonce, { ticket: t.ticket, expiresAt: t.expiresAt, url: `${socketRoute.path}?ticket=${t.ticket}` });
  }

  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() p: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListEvents(dataScopeOf(p), list.filters, list));
    return listResult(
      items.map((d) => eventResource(d.event)),
      total,
    );
  }
}
