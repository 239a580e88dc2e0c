import { Inject } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { v7 as uuidv7 } from 'uuid';
import { ticketStream, ticketNumbersStream, type TicketAuthor, type TicketPriority, type TicketStatus } from '../../../../libs/domain/support/events';
import { ticketDecider, type TicketCommand } from '../../../../libs/domain/support/ticket.decider';
import { ticketNumberDecider } from '../../../../libs/domain/support/ticket-number.decider';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { assignNumber } from '../../../../libs/eventstore/src/assign-number';
import type { Principal } from '../../../../libs/http/src/auth';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { listResult, type ListResult } from '../../../../libs/http/src/list-result';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { apiKeysProjection } from '../../../../projections/api-keys/api-keys.projection';
import { supportMessagesProjection, type SupportMessageDoc } from '../../../../projections/support-messages/support-messages.projection';
import { supportTicketsProjection, type SupportTicketDoc } from '../../../../projections/support-tickets/support-tickets.projection';
import { ownDoc, written } from '../jobs/job-writes';
import { PLATFORM } from '../tokens';
import { idInStream, type RecoveredWrite } from '../common/recovery';

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

/** Requests through these routes come from the customer: an API key by its name, a member by its id (the JWT carries no address yet). */
async function customer(platform: Platform, principal: Principal): Promise<TicketAuthor> {
  if (principal.kind === 'project-member') return { name: principal.memberId, email: null, isSupport: false };
  if (principal.kind !== 'project-key') return { name: `admin:${principal.keyId}`, email: null, isSupport: false };
  const key = await (await platform.projections.collection(apiKeysProjection)).get(principal.keyId);
  return { name: key?.name ?? `API key ${principal.keyId}`, email: null, isSupport: false };
}

async function thread(platform: Platform, ticketId: string): Promise<SupportMessageDoc[]> {
  const messages = await platform.projections.collection(supportMessagesProjection);
  return (await messages.find({ filter: { ticketId }, sort: [{ field: 'revision', direction: 1 }], limit: THREAD_LIMIT, withTotal: false })).items;
}

/** Read-your-writes: the ticket as of this write, and its thread; if the thread's model lags past the wait, the thread is folded from the ticket's stream. */
async function writtenView(platform: Platform, projectId: string, ticketId: string, position: number | null): Promise<TicketView> {
  await platform.waitForProjections(position, [supportTicketsProjection.name, supportMessagesProjection.name]);
  const ticket = await written(platform, supportTicketsProjection, ticketStream(ticketId), ticketId, projectId, position, 'Ticket');
  let messages = await thread(platform, ticketId);
  if (messages.length < Math.min(ticket.replies, THREAD_LIMIT)) {
    const added = (await platform.events.readStream(ticketStream(ticketId))).filter((e) => supportMessagesProjection.eventTypes.includes(e.type) && (position === null || e.position <= position));
    messages = added.slice(0, THREAD_LIMIT).map((e) => supportMessagesProjection.evolve(null, e)!);
  }
  return { ticket, messages };
}

async function decideTicket(platform: Platform, ticketId: string, command: TicketCommand, context: CommandContext, newStream = false) {
  return handleCommand(platform.events, ticketStream(ticketId), ticketDecider, command, context, { newStream });
}

/**
 * The number first: the project's sequence stream, appended at its expected revision, so concurrent
 * creates take distinct numbers. It carries no Idempotency-Key (the ticket's append does), so a keyed
 * retry after a crash between the two appends opens the ticket once, with a new number.
 */
@CommandHandler(OpenSupportTicket)
export class OpenSupportTicketHandler implements ICommandHandler<OpenSupportTicket> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, input, principal, context }: OpenSupportTicket): Promise<TicketView> {
    const ticketId = uuidv7();
    const author = await customer(this.platform, principal);
    const now = this.platform.now();
    const { number } = await assignNumber(this.platform.events, ticketNumbersStream(projectId), ticketNumberDecider, { projectId, ownerId: ticketId, now }, context);
    const { position } = await decideTicket(this.platform, ticketId, { type: 'OpenTicket', ticketId, projectId, number, ...input, author, now }, context, true);
    return writtenView(this.platform, projectId, ticketId, position);
  }
}

@CommandHandler(AddSupportMessage)
export class AddSupportMessageHandler implements ICommandHandler<AddSupportMessage> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, ticketId, content, principal, context }: AddSupportMessage): Promise<TicketView> {
    const author = await customer(this.platform, principal);
    const command = { type: 'AddTicketMessage' as const, ticketId, projectId, messageId: uuidv7(), content, author, now: this.platform.now() };
    const { position } = await decideTicket(this.platform, ticketId, command, context);
    return writtenView(this.platform, projectId, ticketId, position);
  }
}

@CommandHandler(UpdateSupportTicket)
export class UpdateSupportTicketHandler implements ICommandHandler<UpdateSupportTicket> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, ticketId, changes, context }: UpdateSupportTicket): Promise<TicketView> {
    const { position } = await decideTicket(this.platform, ticketId, { type: 'UpdateTicket', ticketId, projectId, ...changes, now: this.platform.now() }, context);
    return writtenView(this.platform, projectId, ticketId, position);
  }
}

@QueryHandler(GetSupportTicket)
export class GetSupportTicketHandler implements IQueryHandler<GetSupportTicket> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, ticketId }: GetSupportTicket): Promise<TicketView> {
    const ticket = await ownDoc(this.platform, supportTicketsProjection, projectId, ticketId, 'Ticket');
    return { ticket, messages: ticket.replies === 0 ? [] : await thread(this.platform, ticketId) };
  }
}

@QueryHandler(ListSupportTickets)
export class ListSupportTicketsHandler implements IQueryHandler<ListSupportTickets> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, list, toResource }: ListSupportTickets): Promise<ListResult<object>> {
    const filter: Record<string, string> = { projectId };
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.priority) filter.priority = list.filters.priority;
    const { items, total } = await (await this.platform.projections.collection(supportTicketsProjection)).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
    return listResult(items.map(toResource), total);
  }
}

/**
 * The ticket a keyed create or message wrote, for an answer a crash lost (DECISIONS 5): the ticket as
 * of the write and its thread up to the write, folded from the ticket's own stream (so a later message
 * is not in it, as it was not in the answer).
 */
export class WrittenTicket extends Query<TicketView | null> {
  constructor(readonly write: RecoveredWrite) {
    super();
  }
}

@QueryHandler(WrittenTicket)
export class WrittenTicketHandler implements IQueryHandler<WrittenTicket> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ write }: WrittenTicket): Promise<TicketView | null> {
    const ticketId = idInStream(ticketStream, write.streamId);
    if (!ticketId) return null;
    await this.platform.waitForProjections(write.position, [supportTicketsProjection.name]);
    const ticket = await this.platform.readBack(supportTicketsProjection, write.streamId, ticketId, write.position);
    if (!ticket || ticket.projectId !== write.projectId) return null;
    const added = (await this.platform.events.readStream(write.streamId)).filter((e) => supportMessagesProjection.eventTypes.includes(e.type) && e.position <= write.position);
    return { ticket, messages: added.slice(0, THREAD_LIMIT).map((e) => supportMessagesProjection.evolve(null, e)!) };
  }
}

export const SUPPORT_HANDLERS = [WrittenTicketHandler, OpenSupportTicketHandler, AddSupportMessageHandler, UpdateSupportTicketHandler, GetSupportTicketHandler, ListSupportTicketsHandler];
