import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { AppError } from '../../../../libs/application/src/errors';
import type { Principal } from '../../../../libs/http/src/auth';
import { declareRoute, route } from '../../../../libs/http/src/route';
import { dataScopeOf } from '../common/resource-lifecycle';
import { position, subjectFilter, typeFilter, typeFilterOf, typeList } from './event-filters';
import { EventStreams, type StreamSelection, type StreamSubscription } from './event-streams';
import { EventTickets, TICKET_TTL_MS } from './event-tickets';

const socketQuery = z.object({
  ticket: z.string().min(1).max(1024).optional().describe('A one-time ticket from `POST /v1/events/tickets` (browsers, which cannot send headers on a WebSocket)'),
  after: position.optional().describe('Start right after this position (default: at the next event)'),
  type: typeList.optional(),
  subject: subjectFilter.optional(),
});

/** DECISIONS 20: the SSE stream's events over a WebSocket. Registered with Fastify by EventSocket (below), declared here for the pipeline and the OpenAPI. */
export const socketRoute = route({
  method: 'GET',
  path: '/v1/events/ws',
  summary: "Follow the project's events live over a WebSocket: one JSON text message `{position, event}` per event",
  description:
    'Upgrades to a WebSocket (`Upgrade: websocket`) carrying the events of the SSE stream, each as `{"position": <n>, "event": <CloudEvent>}`. ' +
    'The client may send `{"subscribe": {"types": [...], "subject": "...", "after": <position>}}` to filter or resume (answered `{"subscribed": {...}}`; ' +
    'without `after` it starts at the next event). The server pings every 15 s and, while a filter matches nothing, sends `{"position": <n>}` (the position reached) ' +
    'so that resuming after the last position seen loses and repeats nothing. A bad message is answered `{"error": {"code", "detail"}}`. ' +
    `Non-browser clients authenticate with the usual headers; browsers with \`?ticket=\` (one use, ${TICKET_TTL_MS / 1000} s). A reader too slow to keep up is closed with 1013 and resumes with its last position.`,
  tag: 'Events',
  auth: 'project',
  permission: 'events:read',
  query: socketQuery,
  responses: { 101: null },
  errorNotes: {
    400: 'BAD_REQUEST: not a WebSocket upgrade; INVALID_QUERY: a position beyond the newest event, or a bad filter',
    401: 'UNAUTHORIZED: no credential, or a ticket that is forged, expired, used before, or of another project or mode than the key sent beside it',
  },
  queryCredential: { parameter: 'ticket', redeem: (ticket, { get, headerPrincipal }) => get(EventTickets).redeem(ticket, headerPrincipal) },
});
declareRoute(socketRoute, 'EventsController', 'socket');

const subscribeMessage = z.strictObject({
  subscribe: z.strictObject({
    types: z.array(typeFilter).max(20).optional(),
    subject: subjectFilter.optional(),
    after: position.optional(),
  }),
});

/** A slow reader is closed rather than buffered without bound: it resumes with its last position. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const CLOSE_TRY_AGAIN_LATER = 1013;
const CLOSE_GOING_AWAY = 1001;

declare module 'fastify' {
  interface FastifyRequest {
    /** The position a WebSocket stream starts after, checked before the upgrade (400 beyond the head). */
    streamAfter?: number;
  }
}

/**
 * Serves `GET /v1/events/ws` with `@fastify/websocket` (registered by libs/http): the upgrade request
 * passes the pipeline (auth or ticket, rate limit counted once, query validation) and this route's
 * check of `after` before the socket is taken; then the socket follows EventStreams like an SSE reader.
 */
@Injectable()
export class EventSocket implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
    @Inject(EventStreams) private readonly streams: EventStreams,
  ) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.route({
      method: 'GET',
      url: socketRoute.path,
      preHandler: async (req) => {
        req.streamAfter = await this.streams.startAfter((req.parsed?.query as z.output<typeof socketQuery>).after, 'after');
      },
      handler: async () => {
        throw new AppError('BAD_REQUEST', 'This route upgrades to a WebSocket: send `Connection: Upgrade` and `Upgrade: websocket`');
      },
      wsHandler: (socket: WebSocket, req: FastifyRequest) => this.serve(socket, req.principal ?? null, req.parsed?.query as z.output<typeof socketQuery>, req.streamAfter!),
    });
  }

  private async serve(socket: WebSocket, p: Principal | null, q: z.output<typeof socketQuery>, after: number): Promise<void> {
    const scope = dataScopeOf(p);
    let sent = after;
    let subscription: StreamSubscription | null = null;
    let closed = false;
    const send = (text: string) => {
      if (closed || socket.readyState !== socket.OPEN) return;
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) socket.close(CLOSE_TRY_AGAIN_LATER, 'reader too slow: resume after your last position');
      else socket.send(text);
    };
    const fail = (code: string, detail: string) => send(JSON.stringify({ error: { code, detail } }));
    // Messages are handled one at a time, in order (a resubscribe finishes before the next is read),
    // from when the first subscription is in place.
    let started!: () => void;
    let queue = new Promise<void>((resolve) => (started = resolve));
    socket.on('message', (data, isBinary) => {
      queue = queue.then(async () => {
        if (closed || !subscription) return;
        let parsed;
        try {
          parsed = subscribeMessage.safeParse(isBinary ? undefined : JSON.parse(String(data)));
        } catch {
          return fail('BAD_REQUEST', 'A message is a JSON text: {"subscribe": {"types": [...], "subject": "...", "after": <position>}}');
        }
        if (!parsed.success) return fail('BAD_REQUEST', parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; '));
        const { types, subject, after: asked } = parsed.data.subscribe;
        let from: number;
        try {
          from = await this.streams.startAfter(asked, 'subscribe.after');
        } catch (err) {
          return fail('INVALID_QUERY', err instanceof Error ? err.message : String(err));
        }
        if (closed) return;
        const selection: StreamSelection = { scope, types: types?.map(typeFilterOf), subject };
        send(JSON.stringify({ subscribed: { after: from, types: types ?? null, subject: subject ?? null } }));
        sent = from;
        await subscription.resubscribe(selection, from);
      });
    });
    socket.on('close', () => {
      closed = true;
      subscription?.close();
    });
    subscription = await this.streams.subscribe({ scope, types: q.type?.map(typeFilterOf), subject: q.subject }, after, {
      event: (at, e) => {
        send(`{"position":${at},"event":${e.cloudEventJson()}}`);
        sent = at;
      },
      tick: (reached) => {
        // The position reached moves the client's resume point past events it was not sent (a sparse filter stays resumable).
        if (reached > sent) send(`{"position":${reached}}`);
        sent = Math.max(sent, reached);
        if (!closed && socket.readyState === socket.OPEN) socket.ping();
      },
      end: () => socket.close(CLOSE_GOING_AWAY, 'the API is shutting down'),
    });
    if (closed) subscription.close();
    started();
  }
}
