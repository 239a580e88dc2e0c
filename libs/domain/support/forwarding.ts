import type { Decider, DomainEvent } from '../shared/domain-error';
import { TicketEventTypes, type TicketAuthor, type TicketMessageAdded, type TicketOpened } from './events';
import { modeOfScope, projectOfScope } from '../shared/scope';

/** The project as support staff read it: its id, and `(test mode)` for a test key's ticket (DECISIONS 21). */
const projectLabel = (scope: string) => `${projectOfScope(scope)}${modeOfScope(scope) === 'test' ? ' (test mode)' : ''}`;

/**
 * Forwarding of new tickets and messages (DECISIONS 17) by email and to a GitHub-compatible issue
 * tracker. Each channel of each ticket has its own stream, `ticket-forwarding-<channel>-<ticketId>`
 * (category `ticket`: the support topic), which records what was forwarded, so a replayed event is
 * never sent again; the tracker's records carry its issue number, which the ticket's messages are
 * commented on.
 */
export type ForwardChannel = 'email' | 'tracker';

export const ticketForwardingStream = (channel: ForwardChannel, ticketId: string) => `ticket-forwarding-${channel}-${ticketId}`;

export const ForwardingEventTypes = {
  /** An attempt to the tracker is about to be made: after a crash, the next attempt first looks for what it may have created. */
  TicketForwardStarted: 'support.TicketForwardStarted.v1',
  TicketForwarded: 'support.TicketForwarded.v1',
  TicketMessageForwarded: 'support.TicketMessageForwarded.v1',
  /** The receiver refused it for good (a 4xx that no retry changes), or there is no issue to comment on. */
  TicketForwardAbandoned: 'support.TicketForwardAbandoned.v1',
} as const;

/** What is forwarded: a new ticket or a message, named by the event that recorded it. */
export type ForwardSource =
  | { kind: 'ticket'; eventId: string; ticketId: string; projectId: string; number: string; subject: string; text: string; author: TicketAuthor; priority: string; category: string | null }
  | { kind: 'message'; eventId: string; ticketId: string; projectId: string; number: string; subject: string; text: string; author: TicketAuthor; messageId: string };

export function forwardSourceOf(e: { id: string; type: string; data: unknown }): ForwardSource | null {
  if (e.type === TicketEventTypes.TicketOpened) {
    const d = e.data as TicketOpened['data'];
    return { kind: 'ticket', eventId: e.id, ticketId: d.ticketId, projectId: d.projectId, number: d.number, subject: d.subject, text: d.message, author: d.author, priority: d.priority, category: d.category };
  }
  if (e.type === TicketEventTypes.TicketMessageAdded) {
    const d = e.data as TicketMessageAdded['data'];
    return { kind: 'message', eventId: e.id, ticketId: d.ticketId, projectId: d.projectId, number: d.number, subject: d.subject, text: d.content, author: d.author, messageId: d.messageId };
  }
  return null;
}

type Base = { ticketId: string; projectId: string; number: string; channel: ForwardChannel; sourceEventId: string };
export type TicketForwardStarted = DomainEvent<typeof ForwardingEventTypes.TicketForwardStarted, Base & { kind: ForwardSource['kind']; startedAt: string }>;
export type TicketForwarded = DomainEvent<typeof ForwardingEventTypes.TicketForwarded, Base & { issueNumber: number | null; mailMessageId: string | null; forwardedAt: string }>;
export type TicketMessageForwarded = DomainEvent<
  typeof ForwardingEventTypes.TicketMessageForwarded,
  Base & { messageId: string; issueNumber: number | null; commentId: number | null; mailMessageId: string | null; forwardedAt: string }
>;
export type TicketForwardAbandoned = DomainEvent<typeof ForwardingEventTypes.TicketForwardAbandoned, Base & { kind: ForwardSource['kind']; reason: string; abandonedAt: string }>;
export type ForwardingEvent = TicketForwardStarted | TicketForwarded | TicketMessageForwarded | TicketForwardAbandoned;

export interface ForwardingState {
  /** Source events an attempt was started for, with when (the tracker's look-up starts a little before). */
  started: Record<string, string>;
  /** Source events forwarded or abandoned: never sent again. */
  settled: string[];
  /** The ticket's issue at the tracker, once its TicketOpened was forwarded there. */
  issueNumber: number | null;
  /** The Message-ID of the ticket's forwarded mail, once its TicketOpened was mailed: later messages answer it. */
  mailMessageId: string | null;
  /** The ticket's own forward is forwarded or abandoned: its messages may follow (a comment needs its issue, a mail its thread). */
  ticketSettled: boolean;
}

/** What the receiver answered for a forward. */
export type ForwardReceipt = { issueNumber?: number; commentId?: number; mailMessageId?: string };

export type ForwardingCommand =
  | { type: 'StartForward'; channel: ForwardChannel; source: ForwardSource; now: string }
  | { type: 'RecordForward'; channel: ForwardChannel; source: ForwardSource; receipt: ForwardReceipt; now: string }
  | { type: 'AbandonForward'; channel: ForwardChannel; source: ForwardSource; reason: string; now: string };

/** The next step for a source event: nothing (settled), look at the receiver first (an attempt may have landed), or send. */
export function forwardStep(state: ForwardingState, eventId: string): 'settled' | 'check' | 'send' {
  if (state.settled.includes(eventId)) return 'settled';
  return state.started[eventId] ? 'check' : 'send';
}

const base = (c: { channel: ForwardChannel; source: ForwardSource }): Base => ({ ticketId: c.source.ticketId, projectId: c.source.projectId, number: c.source.number, channel: c.channel, sourceEventId: c.source.eventId });

export const forwardingDecider: Decider<ForwardingCommand, ForwardingEvent, ForwardingState> = {
  initialState: () => ({ started: {}, settled: [], issueNumber: null, mailMessageId: null, ticketSettled: false }),
  evolve: (state, event) => {
    const d = event.data as Base & Partial<{ startedAt: string; issueNumber: number | null; mailMessageId: string | null; kind: string }>;
    switch (event.type) {
      case ForwardingEventTypes.TicketForwardStarted:
        return { ...state, started: { ...state.started, [d.sourceEventId]: String(d.startedAt) } };
      case ForwardingEventTypes.TicketForwarded:
        return { ...state, settled: [...state.settled, d.sourceEventId], issueNumber: d.issueNumber ?? state.issueNumber, mailMessageId: d.mailMessageId ?? state.mailMessageId, ticketSettled: true };
      case ForwardingEventTypes.TicketMessageForwarded:
        return { ...state, settled: [...state.settled, d.sourceEventId] };
      case ForwardingEventTypes.TicketForwardAbandoned:
        return { ...state, settled: [...state.settled, d.sourceEventId], ticketSettled: state.ticketSettled || d.kind === 'ticket' };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    const step = forwardStep(state, command.source.eventId);
    if (step === 'settled') return [];
    switch (command.type) {
      case 'StartForward':
        return step === 'send' ? [{ type: ForwardingEventTypes.TicketForwardStarted, data: { ...base(command), kind: command.source.kind, startedAt: command.now } }] : [];
      case 'RecordForward': {
        const { issueNumber = null, commentId = null, mailMessageId = null } = command.receipt;
        if (command.source.kind === 'ticket') return [{ type: ForwardingEventTypes.TicketForwarded, data: { ...base(command), issueNumber, mailMessageId, forwardedAt: command.now } }];
        return [{ type: ForwardingEventTypes.TicketMessageForwarded, data: { ...base(command), messageId: command.source.messageId, issueNumber, commentId, mailMessageId, forwardedAt: command.now } }];
      }
      case 'AbandonForward':
        return [{ type: ForwardingEventTypes.TicketForwardAbandoned, data: { ...base(command), kind: command.source.kind, reason: command.reason, abandonedAt: command.now } }];
    }
  },
};

// ---------------------------------------------------------------- what the receivers get

/** The hidden line in a tracker issue or comment that names its source event: how a retry after a crash finds what it already created. */
export const forwardMarker = (eventId: string) => `<!-- cloud-support-forward:${eventId} -->`;

/** The stable Message-ID of a forward's mail: a resend after a crash carries the same one, so the receiver can drop it. */
export const forwardMailMessageId = (eventId: string) => `<ticket-forward-${eventId}@cloud-provisioning.invalid>`;

const authorLine = (a: TicketAuthor) => `${a.name}${a.email ? ` <${a.email}>` : ''}${a.isSupport ? ' (support)' : ' (customer)'}`;
/** One line: a subject is a header at the receivers (mail, issue title). */
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

/**
 * The mail of a forward. A message's mail answers its ticket's (`ticketMailId`: In-Reply-To and
 * References), so the support desk's mail client shows the ticket as one thread.
 */
export function forwardMail(source: ForwardSource, to: string, ticketMailId: string | null = null): { to: string; subject: string; text: string; messageId: string; inReplyTo?: string } {
  const subject = `${source.kind === 'message' ? 'Re: ' : ''}[${source.number}] ${oneLine(source.subject)}`;
  const head =
    source.kind === 'ticket'
      ? [`New support ticket ${source.number} in project ${projectLabel(source.projectId)}`, `Priority: ${source.priority}`, `Category: ${source.category ?? '-'}`]
      : [`New message on support ticket ${source.number} in project ${projectLabel(source.projectId)}`];
  const text = [...head, `From: ${authorLine(source.author)}`, `Ticket: ${source.ticketId}`, '', source.text, ''].join('\n');
  const inReplyTo = source.kind === 'message' && ticketMailId ? { inReplyTo: ticketMailId } : {};
  return { to, subject, text, messageId: forwardMailMessageId(source.eventId), ...inReplyTo };
}

export function trackerIssue(source: Extract<ForwardSource, { kind: 'ticket' }>): { title: string; body: string } {
  const body = [
    `Support ticket **${source.number}** (project \`${projectLabel(source.projectId)}\`, ticket \`${source.ticketId}\`)`,
    `Priority: ${source.priority} · Category: ${source.category ?? '-'} · From: ${authorLine(source.author)}`,
    '',
    source.text,
    '',
    forwardMarker(source.eventId),
  ].join('\n');
  return { title: `[${source.number}] ${oneLine(source.subject)}`, body };
}

export function trackerComment(source: Extract<ForwardSource, { kind: 'message' }>): { body: string } {
  return { body: [`Message on ${source.number} from ${authorLine(source.author)}:`, '', source.text, '', forwardMarker(source.eventId)].join('\n') };
}
