import type pino from 'pino';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import {
  forwardingDecider,
  forwardMail,
  forwardMarker,
  forwardSourceOf,
  forwardStep,
  ticketForwardingStream,
  trackerComment,
  trackerIssue,
  type ForwardChannel,
  type ForwardingState,
  type ForwardReceipt,
  type ForwardSource,
} from '../../libs/domain/support/forwarding';
import { smtpCodeOf, smtpRefusalIsPermanent } from '../../libs/domain/outbox/failures';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';
import { TrackerError, type IssueTracker } from './tracker-client';

/** What a channel's send came to: a receipt, or a refusal no retry changes. */
export type ForwardOutcome = ForwardReceipt | { abandon: string };

/** One way out for forwards (mail, the issue tracker). */
export interface ForwardChannelDriver {
  channel: ForwardChannel;
  /**
   * Whether the receiver can be asked what it got: then each attempt is recorded before it is made,
   * and the attempt after a crash (or a timeout, whose outcome is unknown) looks there first.
   */
  find?(source: ForwardSource, state: ForwardingState): Promise<ForwardReceipt | null>;
  send(source: ForwardSource, state: ForwardingState): Promise<ForwardOutcome>;
}

/** Mail to SUPPORT_FORWARD_EMAIL. The Message-ID derives from the source event, so a resend after a crash is the same mail. */
export function mailChannel(mailer: { send(m: { to: string; subject: string; text: string; messageId: string; inReplyTo?: string }): Promise<void> }, to: string): ForwardChannelDriver {
  return {
    channel: 'email',
    async send(source, state) {
      const mail = forwardMail(source, to, state.mailMessageId);
      try {
        await mailer.send(mail);
      } catch (err) {
        if (smtpRefusalIsPermanent(err)) return { abandon: `mail refused with SMTP ${smtpCodeOf(err)}` };
        throw err;
      }
      return { mailMessageId: mail.messageId };
    },
  };
}

/** How far before an attempt's record a look-up starts (the tracker's clock may differ from ours). */
const LOOKBACK_MS = 5 * 60_000;

/** The GitHub-compatible tracker: an issue per ticket, a comment per message on that issue. */
export function trackerChannel(tracker: IssueTracker): ForwardChannelDriver {
  const since = (state: ForwardingState, source: ForwardSource) => new Date(Date.parse(state.started[source.eventId]) - LOOKBACK_MS).toISOString();
  const refused = (err: unknown): ForwardOutcome => {
    if (err instanceof TrackerError && err.permanent) return { abandon: err.message };
    throw err;
  };
  return {
    channel: 'tracker',
    async find(source, state) {
      if (source.kind === 'ticket') {
        const issueNumber = await tracker.findIssue(forwardMarker(source.eventId), since(state, source));
        return issueNumber === null ? null : { issueNumber };
      }
      if (state.issueNumber === null) return null;
      const commentId = await tracker.findComment(state.issueNumber, forwardMarker(source.eventId), since(state, source));
      return commentId === null ? null : { issueNumber: state.issueNumber, commentId };
    },
    async send(source, state) {
      if (source.kind === 'ticket') return tracker.createIssue(trackerIssue(source)).then(({ number }) => ({ issueNumber: number }), refused);
      // The ticket's own forward came first (same subscription, log order); without an issue there is nothing to comment on.
      const issueNumber = state.issueNumber;
      if (issueNumber === null) return { abandon: `ticket ${source.number} has no issue at the tracker` };
      return tracker.comment(issueNumber, trackerComment(source).body).then(({ id }) => ({ issueNumber, commentId: id }), refused);
    },
  };
}

/**
 * The process manager of one forwarding channel, on its own checkpointed subscription: each
 * TicketOpened and TicketMessageAdded is sent once and recorded (TicketForwarded,
 * TicketMessageForwarded) on the ticket's forwarding stream. A receiver that fails makes the batch
 * fail: the subscription retries it from its checkpoint with capped exponential backoff (100 ms to
 * 5 s), in this process or, after a crash, in the next one, and what was recorded is skipped. The
 * request that opened the ticket never waits for any of it. Without a driver (the channel is not
 * configured) events pass unforwarded and the checkpoint moves on: configuring a channel later
 * forwards what comes after, not the history.
 */
export class TicketForwarding implements SubscriptionHandler {
  readonly name: string;
  readonly batchSize = 50;

  constructor(
    private readonly events: EventStore,
    channel: ForwardChannel,
    private readonly driver: ForwardChannelDriver | null,
    private readonly now: () => string,
    private readonly logger: pino.Logger,
  ) {
    this.name = `saga:support-forward-${channel}`;
  }

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    if (!this.driver) return false;
    let changed = false;
    for (const e of batch) {
      const source = forwardSourceOf(e);
      if (source && (await this.forward(this.driver, source, e))) changed = true;
    }
    return changed;
  }

  private async forward(driver: ForwardChannelDriver, source: ForwardSource, e: RecordedEvent): Promise<boolean> {
    const stream = ticketForwardingStream(driver.channel, source.ticketId);
    let state = forwardingDecider.initialState();
    for (const r of await this.events.readStream(stream)) state = forwardingDecider.evolve(state, { type: r.type, data: r.data } as never);
    const step = forwardStep(state, source.eventId);
    if (step === 'settled') return false;
    const ctx: CommandContext = { metadata: causedBy({ id: source.eventId, metadata: e.metadata }, { projectId: source.projectId, actor: `system:support-forward-${driver.channel}`, correlationId: e.metadata.correlationId ?? source.ticketId }) };
    let outcome: ForwardOutcome | null = step === 'check' && driver.find ? await driver.find(source, state) : null;
    if (!outcome) {
      if (driver.find) {
        const now = this.now();
        await handleCommand(this.events, stream, forwardingDecider, { type: 'StartForward', channel: driver.channel, source, now }, ctx);
        state = { ...state, started: { ...state.started, [source.eventId]: state.started[source.eventId] ?? now } };
      }
      outcome = await driver.send(source, state);
    }
    const command =
      'abandon' in outcome
        ? { type: 'AbandonForward' as const, channel: driver.channel, source, reason: outcome.abandon, now: this.now() }
        : { type: 'RecordForward' as const, channel: driver.channel, source, receipt: outcome, now: this.now() };
    await handleCommand(this.events, stream, forwardingDecider, command, ctx);
    const log = { ticketId: source.ticketId, number: source.number, channel: driver.channel, kind: source.kind, sourceEventId: source.eventId };
    if ('abandon' in outcome) this.logger.warn({ ...log, reason: outcome.abandon }, 'ticket forward abandoned');
    else this.logger.info({ ...log, ...outcome }, 'ticket forwarded');
    return true;
  }
}
