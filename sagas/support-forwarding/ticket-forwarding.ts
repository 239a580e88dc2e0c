import type pino from 'pino';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
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
import type { EffectOutcome } from '../../libs/domain/outbox/effect';
import { MESSAGE_RETRY_POLICY } from '../../libs/domain/outbox/retry-policy';
import type { EffectKind, EffectRequest, PendingEffect } from '../../libs/runtime/src/outbox/outbox';
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

/** The outbox kind of a channel's forwards. */
export const forwardKind = (channel: ForwardChannel) => `support.forward-${channel}`;

/** The effects each TicketOpened and TicketMessageAdded asks for: one forward per configured channel. */
export function forwardsOf(channel: ForwardChannel, configured: boolean): (e: RecordedEvent) => EffectRequest[] {
  return (e) => {
    const source = configured ? forwardSourceOf(e) : null;
    return source ? [{ kind: forwardKind(channel), target: source.ticketId, projectId: source.projectId }] : [];
  };
}

/**
 * A channel's forwards as outbox effects (scheduled from each channel's own checkpointed
 * subscription, `saga:support-forward-<channel>`): each TicketOpened and TicketMessageAdded is sent
 * once and recorded (TicketForwarded, TicketMessageForwarded, TicketForwardAbandoned) on the ticket's
 * forwarding stream, which is skipped when settled, so a replay sends nothing twice. A receiver that
 * fails delays only its own forwards, retried by the outbox's policy; the request that opened the
 * ticket never waits for any of it. A message waits for its ticket's own forward (its comment needs
 * the issue, its mail the thread). Without a driver (the channel is not configured) nothing is
 * scheduled: configuring a channel later forwards what comes after, not the history.
 */
export function ticketForwardKind(events: EventStore, driver: ForwardChannelDriver, now: () => string, logger: pino.Logger): EffectKind {
  const record = async (source: ForwardSource, cause: RecordedEvent, outcome: ForwardOutcome) => {
    const command =
      'abandon' in outcome
        ? { type: 'AbandonForward' as const, channel: driver.channel, source, reason: outcome.abandon, now: now() }
        : { type: 'RecordForward' as const, channel: driver.channel, source, receipt: outcome, now: now() };
    await handleCommand(events, ticketForwardingStream(driver.channel, source.ticketId), forwardingDecider, command, contextOf(source, cause));
    const log = { ticketId: source.ticketId, number: source.number, channel: driver.channel, kind: source.kind, sourceEventId: source.eventId };
    if ('abandon' in outcome) logger.warn({ ...log, reason: outcome.abandon }, 'ticket forward abandoned');
    else logger.info({ ...log, ...outcome }, 'ticket forwarded');
  };
  const contextOf = (source: ForwardSource, e: RecordedEvent): CommandContext => ({
    metadata: causedBy({ id: source.eventId, metadata: e.metadata }, { projectId: source.projectId, actor: `system:support-forward-${driver.channel}`, correlationId: e.metadata.correlationId ?? source.ticketId }),
  });
  return {
    kind: forwardKind(driver.channel),
    policy: MESSAGE_RETRY_POLICY,
    async perform(_effect: PendingEffect, cause: RecordedEvent): Promise<EffectOutcome> {
      const source = forwardSourceOf(cause);
      if (!source) return { ok: false, retryable: false, reason: `${cause.type} is not forwarded` };
      const stream = ticketForwardingStream(driver.channel, source.ticketId);
      let { state } = await aggregateStream(events, stream, forwardingDecider);
      const step = forwardStep(state, source.eventId);
      if (step === 'settled') return { ok: true, receipt: {} };
      if (source.kind === 'message' && !state.ticketSettled) return { ok: false, retryable: true, reason: `waiting for ticket ${source.number}'s own forward` };
      let outcome: ForwardOutcome | null = step === 'check' && driver.find ? await driver.find(source, state) : null;
      if (!outcome) {
        if (driver.find) {
          const at = now();
          await handleCommand(events, stream, forwardingDecider, { type: 'StartForward', channel: driver.channel, source, now: at }, contextOf(source, cause));
          state = { ...state, started: { ...state.started, [source.eventId]: state.started[source.eventId] ?? at } };
        }
        outcome = await driver.send(source, state);
      }
      await record(source, cause, outcome);
      if ('abandon' in outcome) return { ok: false, retryable: false, reason: outcome.abandon };
      const { issueNumber = null, commentId = null, mailMessageId = null } = outcome;
      return { ok: true, receipt: { issueNumber, commentId, mailMessageId } };
    },
    async gaveUp(_effect, cause, reason) {
      const source = forwardSourceOf(cause);
      if (source) await record(source, cause, { abandon: reason });
    },
  };
}
