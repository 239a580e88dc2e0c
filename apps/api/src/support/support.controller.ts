import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { TICKET, TICKET_MESSAGE } from '../../../../libs/domain/support/ticket.fields';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { TICKETS_LIST, type SupportTicketDoc } from '../../../../projections/support-tickets/support-tickets.projection';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { AddSupportMessage, GetSupportTicket, ListSupportTickets, OpenSupportTicket, UpdateSupportTicket, type TicketView } from '../../../../usecases/support/support.handlers';
import { BusController } from '../common/bus-controller';
import { listOf } from '../../../../libs/http/src/list-query';

const TYPE = 'support-tickets';
const fields = TICKET.stored.shape;

/** The full answer: the ticket's attributes and its thread; a list shows the attributes only. */
const ticketAttributes = TICKET.attributes.extend({
  messages: z.array(TICKET_MESSAGE.attributes).describe('The thread in the order it was written (a list shows `replies` only)'),
});
const createBody = TICKET.stored.pick({ subject: true, message: true }).extend({ priority: fields.priority.default('medium'), category: fields.category.optional() });
const updateBody = z.object({
  status: fields.status.optional().describe('Any of the four; a closed ticket is final (409 INVALID_STATE)'),
  priority: fields.priority.optional(),
  category: fields.category.optional().describe('null clears it'),
});
const messageBody = TICKET_MESSAGE.stored.pick({ content: true });
const idParams = z.object({ id: pathId });

const ticketResource = (doc: SupportTicketDoc) => ({ id: doc.id, type: TYPE, attributes: TICKET.attributesOf(doc) });
const ticketDocument = ({ ticket, messages }: TicketView) => resource(TYPE, ticket.id, { ...TICKET.attributesOf(ticket), messages: messages.map(TICKET_MESSAGE.attributesOf) });

const common = { tag: 'Support', auth: 'project' } as const;
const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/support',
  summary: "List the project's support tickets",
  permission: 'support:read',
  list: listOf(TYPE, TICKETS_LIST),
  query: z.object({ status: fields.status.optional(), priority: fields.priority.optional() }),
  responses: { 200: collectionSchema(TYPE, TICKET.attributes) },
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
