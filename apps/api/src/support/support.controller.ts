import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketAuthor } from '../../../../libs/domain/support/events';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { SupportMessageDoc } from '../../../../projections/support-messages/support-messages.projection';
import { TICKETS_LIST, type SupportTicketDoc } from '../../../../projections/support-tickets/support-tickets.projection';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { AddSupportMessage, GetSupportTicket, ListSupportTickets, OpenSupportTicket, UpdateSupportTicket, type TicketView } from '../../../../usecases/support/support.handlers';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

const TYPE = 'support-tickets';
const text = (max: number) => z.string().min(1).max(max).refine((s) => s.trim().length > 0, { message: 'must not be blank' });
const category = z.string().min(1).max(100).nullable();

const author = z.object({
  name: z.string().describe("The API key's name, or the member's email"),
  email: z.string().describe("The member's email; for an API key the project owner's (DECISIONS 17)"),
  isSupport: z.boolean(),
});
/** Events recorded before DECISIONS 17 may hold a null email: answered as an empty string, never null. */
const authorOf = (a: TicketAuthor) => ({ ...a, email: a.email ?? '' });
const ticketFields = {
  number: z.string().describe('TCK-<6-digit sequence per project> (DECISIONS 17)'),
  subject: z.string(),
  message: z.string().describe('The original message'),
  status: z.enum(TICKET_STATUSES),
  priority: z.enum(TICKET_PRIORITIES),
  category: z.string().nullable(),
  replies: z.number().int().describe('How many messages were added after the original one'),
  author,
  createdAt: z.string(),
  updatedAt: z.string(),
};
const listedTicketAttributes = z.object(ticketFields);
const ticketAttributes = z.object({
  ...ticketFields,
  messages: z.array(z.object({ id: z.string(), content: z.string(), author, timestamp: z.string() })).describe('The thread in the order it was written (a list shows `replies` only)'),
});

const createBody = z.object({
  subject: text(200),
  message: text(10000),
  priority: z.enum(TICKET_PRIORITIES).default('medium'),
  category: category.optional(),
});
const updateBody = z.object({
  status: z.enum(TICKET_STATUSES).optional().describe('Any of the four; a closed ticket is final (409 INVALID_STATE)'),
  priority: z.enum(TICKET_PRIORITIES).optional(),
  category: category.optional().describe('null clears it'),
});
const messageBody = z.object({ content: text(10000) });
const idParams = z.object({ id: pathId });

function listedAttributes(doc: SupportTicketDoc) {
  const { number, subject, message, status, priority, category, replies, author, createdAt, updatedAt } = doc;
  return { number, subject, message, status, priority, category, replies, author: authorOf(author), createdAt, updatedAt };
}
const messageOf = (m: SupportMessageDoc) => ({ id: m.id, content: m.content, author: authorOf(m.author), timestamp: m.timestamp });
const ticketResource = (doc: SupportTicketDoc) => ({ id: doc.id, type: TYPE, attributes: listedAttributes(doc) });
const ticketDocument = ({ ticket, messages }: TicketView) => resource(TYPE, ticket.id, { ...listedAttributes(ticket), messages: messages.map(messageOf) });

const common = { tag: 'Support', auth: 'project' } as const;
const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/support',
  summary: "List the project's support tickets",
  permission: 'support:read',
  list: listOf(TYPE, TICKETS_LIST),
  query: z.object({ status: z.enum(TICKET_STATUSES).optional(), priority: z.enum(TICKET_PRIORITIES).optional() }),
  responses: { 200: collectionSchema(TYPE, listedTicketAttributes) },
});
const createRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/support',
  summary: 'Open a support ticket (status open, numbered TCK-000001 onwards per project)',
  permission: 'support:write',
  type: TYPE,
  body: createBody,
  idempotent: true,
  responses: { 201: resourceSchema(TYPE, ticketAttributes) },
});
const getRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/support/{id}',
  summary: 'Get a support ticket with its messages',
  permission: 'support:read',
  params: idParams,
  responses: { 200: resourceSchema(TYPE, ticketAttributes) },
});
const updateRoute = route({
  ...common,
  method: 'PATCH',
  path: '/v1/support/{id}',
  summary: "Change a ticket's status, priority or category",
  description: 'open, pending and resolved follow each other in any order and each may be closed; a closed ticket takes no change (409 INVALID_STATE).',
  permission: 'support:write',
  type: TYPE,
  params: idParams,
  body: updateBody,
  responses: { 200: resourceSchema(TYPE, ticketAttributes) },
});
const messageRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/support/{id}/messages',
  summary: 'Add a message to a ticket',
  description: 'A reply to a pending or resolved ticket reopens it; a closed ticket takes none (409 INVALID_STATE).',
  permission: 'support:write',
  type: TYPE,
  params: idParams,
  body: messageBody,
  idempotent: true,
  responses: { 200: resourceSchema(TYPE, ticketAttributes) },
});

@Controller()
export class SupportController extends BusController {
  @ApiRoute(listRoute)
  list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    return this.queries.execute(new ListSupportTickets(dataScopeOf(principal), list, ticketResource));
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const input = { subject: body.subject, message: body.message, priority: body.priority, category: body.category ?? null };
    return ticketDocument(await this.commands.execute(new OpenSupportTicket(dataScopeOf(principal), input, principal, commandContext(req, principal))));
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return ticketDocument(await this.queries.execute(new GetSupportTicket(dataScopeOf(principal), params.id)));
  }

  @ApiRoute(updateRoute)
  async update(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof updateRoute>['params'], @Parsed('body') body: RouteInput<typeof updateRoute>['body']) {
    return ticketDocument(await this.commands.execute(new UpdateSupportTicket(dataScopeOf(principal), params.id, body, commandContext(req, principal))));
  }

  @ApiRoute(messageRoute)
  async addMessage(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof messageRoute>['params'], @Parsed('body') body: RouteInput<typeof messageRoute>['body']) {
    return ticketDocument(await this.commands.execute(new AddSupportMessage(dataScopeOf(principal), params.id, body.content, principal, commandContext(req, principal))));
  }
}
