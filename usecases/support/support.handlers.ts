import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { ticketStream, ticketNumbersStream, type TicketAuthor, type TicketPriority, type TicketStatus } from '../../libs/domain/support/events';
import { ticketDecider, type TicketCommand } from '../../libs/domain/support/ticket.decider';
import { ticketNumberDecider } from '../../libs/domain/support/ticket-number.decider';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { assignNumber } from '../../libs/eventstore/src/assign-number';
import type { Principal } from '../../libs/application/src/actor';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { listResult, type ListResult } from '../../libs/application/src/views';
import { apiKeysProjection } from '../../projections/api-keys/api-keys.projection';
import { membersProjection, projectOwnerQuery } from '../../projections/members/members.projection';
import { supportMessagesProjection, type SupportMessageDoc } from '../../projections/support-messages/support-messages.projection';
import { supportTicketsProjection, type SupportTicketDoc } from '../../projections/support-tickets/support-tickets.projection';
import { ownDoc, written } from '../jobs/job-writes';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** A ticket as its single answers show it: the ticket and its thread, in order. */
export interface TicketView {
  ticket: SupportTicketDoc;
  messages: SupportMessageDoc[];
}

/** The most messages a ticket's answer shows (the oldest first). */
export const THREAD_LIMIT = 1000;

export class OpenSupportTicket extends Command<TicketView> {
  constructor(
    readonly projectId: string,
    readonly input: { subject: string; message: string; priority: TicketPriority; category: string | null },
    readonly principal: Principal,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class AddSupportMessage extends Command<TicketView> {
  constructor(
    readonly projectId: string,
    readonly ticketId: string,
    readonly content: string,
    readonly principal: Principal,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class UpdateSupportTicket extends Command<TicketView> {
  constructor(
    readonly projectId: string,
    readonly ticketId: string,
    readonly changes: { status?: TicketStatus; priority?: TicketPriority; category?: string | null },
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class GetSupportTicket extends Query<TicketView> {
  constructor(
    readonly projectId: string,
    readonly ticketId: string,
  ) {
    super();
  }
}

export class ListSupportTickets extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ status?: TicketStatus; priority?: TicketPriority }>,
    readonly toResource: (doc: SupportTicketDoc) => { id: string; type: string; attributes: object },
  ) {
    super();
  }
}

/**
 * Requests through these routes come from the customer (DECISIONS 17). `email` is always a string: a
 * member's own (its token's `email` claim, else its registry entry); for an API key the project
 * owner's (the customer record's: its oldest active owner member), else `BOOTSTRAP_OWNER_EMAIL`.
 * `name` is the key's name, or the member's email (members carry no other name).
 */
async function customer(ports: PortsOf<'projections' | 'config'>, principal: Principal): Promise<TicketAuthor> {
  if (principal.kind === 'platform-admin') return { name: `admin:${principal.keyId}`, email: ports.config.support.bootstrapOwnerEmail, isSupport: false };
  const members = await ports.projections.collection(membersProjection);
  const ownerEmail = async () => (await members.find(projectOwnerQuery(principal.projectId))).items[0]?.email ?? ports.config.support.bootstrapOwnerEmail;
  if (principal.kind === 'project-member') {
    const email = principal.email ?? (await members.get(principal.memberId))?.email;
    return { name: email ?? principal.memberId, email: email ?? (await ownerEmail()), isSupport: false };
  }
  const key = await (await ports.projections.collection(apiKeysProjection)).get(principal.keyId);
  return { name: key?.name ?? `API key ${principal.keyId}`, email: await ownerEmail(), isSupport: false };
}

async function thread(ports: PortsOf<'projections'>, ticketId: string): Promise<SupportMessageDoc[]> {
  const messages = await ports.projections.collection(supportMessagesProjection);
  return (await messages.find({ filter: { ticketId }, sort: [{ field: 'revision', direction: 1 }], limit: THREAD_LIMIT, withTotal: false })).items;
}

/**
 * Read-your-writes: the ticket as of this write, and its thread up to it (a re-run after a crash,
 * DECISIONS 5, answers what the first run did, without later messages); if the thread's model lags
 * past the wait, the thread is folded from the ticket's stream.
 */
async function writtenView(ports: PortsOf<'events' | 'projections' | 'readBack' | 'waitForProjections'>, projectId: string, ticketId: string, position: number | null): Promise<TicketView> {
  await ports.waitForProjections(position, [supportTicketsProjection.name, supportMessagesProjection.name]);
  const ticket = await written(ports, supportTicketsProjection, ticketStream(ticketId), ticketId, projectId, position, 'Ticket');
  let messages = (await thread(ports, ticketId)).filter((m) => position === null || m._position <= position);
  if (messages.length < Math.min(ticket.replies, THREAD_LIMIT)) {
    const added = (await ports.events.readStream(ticketStream(ticketId))).filter((e) => supportMessagesProjection.eventTypes.includes(e.type) && (position === null || e.position <= position));
    messages = added.slice(0, THREAD_LIMIT).map((e) => supportMessagesProjection.evolve(null, e)!);
  }
  return { ticket, messages };
}

async function decideTicket(ports: PortsOf<'events'>, ticketId: string, command: TicketCommand, context: CommandContext, newStream = false) {
  return handleCommand(ports.events, ticketStream(ticketId), ticketDecider, command, context, { newStream });
}

/**
 * The number first: the project's sequence stream, appended at its expected revision, so concurrent
 * creates take distinct numbers. It carries no Idempotency-Key (the ticket's append does); a keyed
 * re-run after a crash (DECISIONS 5) finds the number its first run took, and the ticket if it was opened.
 */
@CommandHandler(OpenSupportTicket)
export class OpenSupportTicketHandler implements ICommandHandler<OpenSupportTicket> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, input, principal, context }: OpenSupportTicket): Promise<TicketView> {
    const ticketId = requestScopedId(context, 'ticket');
    const author = await customer(this.ports, principal);
    const now = this.ports.now();
    const { number } = await assignNumber(this.ports.events, ticketNumbersStream(projectId), ticketNumberDecider, { projectId, ownerId: ticketId, now }, context);
    const { position } = await decideTicket(this.ports, ticketId, { type: 'OpenTicket', ticketId, projectId, number, ...input, author, now }, context, true);
    return writtenView(this.ports, projectId, ticketId, position);
  }
}

@CommandHandler(AddSupportMessage)
export class AddSupportMessageHandler implements ICommandHandler<AddSupportMessage> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, ticketId, content, principal, context }: AddSupportMessage): Promise<TicketView> {
    const author = await customer(this.ports, principal);
    const command = { type: 'AddTicketMessage' as const, ticketId, projectId, messageId: requestScopedId(context, 'message'), content, author, now: this.ports.now() };
    const { position } = await decideTicket(this.ports, ticketId, command, context);
    return writtenView(this.ports, projectId, ticketId, position);
  }
}

@CommandHandler(UpdateSupportTicket)
export class UpdateSupportTicketHandler implements ICommandHandler<UpdateSupportTicket> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, ticketId, changes, context }: UpdateSupportTicket): Promise<TicketView> {
    const { position } = await decideTicket(this.ports, ticketId, { type: 'UpdateTicket', ticketId, projectId, ...changes, now: this.ports.now() }, context);
    return writtenView(this.ports, projectId, ticketId, position);
  }
}

@QueryHandler(GetSupportTicket)
export class GetSupportTicketHandler implements IQueryHandler<GetSupportTicket> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, ticketId }: GetSupportTicket): Promise<TicketView> {
    const ticket = await ownDoc(this.ports, supportTicketsProjection, projectId, ticketId, 'Ticket');
    return { ticket, messages: ticket.replies === 0 ? [] : await thread(this.ports, ticketId) };
  }
}

@QueryHandler(ListSupportTickets)
export class ListSupportTicketsHandler implements IQueryHandler<ListSupportTickets> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list, toResource }: ListSupportTickets): Promise<ListResult<object>> {
    const filter: Record<string, string> = { projectId };
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.priority) filter.priority = list.filters.priority;
    const { items, total } = await (await this.ports.projections.collection(supportTicketsProjection)).find({ filter, ...pageOf(list) });
    return listResult(items.map(toResource), total);
  }
}

export const SUPPORT_HANDLERS = [OpenSupportTicketHandler, AddSupportMessageHandler, UpdateSupportTicketHandler, GetSupportTicketHandler, ListSupportTicketsHandler];
