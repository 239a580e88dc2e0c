import { TicketEventTypes } from '../../libs/domain/support/events';
import { ForwardingEventTypes } from '../../libs/domain/support/forwarding';
import { supportMessagesProjection } from '../../projections/support-messages/support-messages.projection';
import { supportTicketsProjection } from '../../projections/support-tickets/support-tickets.projection';
import { forwardsOf, mailChannel, ticketForwardKind, trackerChannel } from '../../sagas/support-forwarding/ticket-forwarding';
import { EffectScheduler } from '../../libs/runtime/src/outbox/outbox';
import { githubCompatibleTracker } from '../../sagas/support-forwarding/tracker-client';
import { isoNow } from '../../libs/runtime/src/clock';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Support tickets (spec 2.6, 4.13, DECISIONS 17), and the forwarding of each new ticket and message
 * by email (SUPPORT_FORWARD_EMAIL, through the Mailer) and to a GitHub-compatible issue tracker
 * (TRACKER_URL/REPO/TOKEN): each channel's forwards are scheduled from its own checkpointed
 * subscription and run on the outbox, so a tracker that is down delays neither the mail, nor another
 * ticket's forward, nor any request.
 */
export const supportModule: ContextModule = {
  name: 'support',
  projections: [supportTicketsProjection, supportMessagesProjection],
  processManagers: (rt) => {
    const { forwardEmail, tracker } = rt.config.support;
    const now = () => isoNow(rt.clock);
    if (forwardEmail) rt.outbox.register(ticketForwardKind(rt.events, mailChannel(rt.mailer, forwardEmail), now, rt.logger));
    if (tracker) rt.outbox.register(ticketForwardKind(rt.events, trackerChannel(githubCompatibleTracker(tracker)), now, rt.logger));
    return [new EffectScheduler('saga:support-forward-email', rt.outbox, forwardsOf('email', !!forwardEmail)), new EffectScheduler('saga:support-forward-tracker', rt.outbox, forwardsOf('tracker', !!tracker))];
  },
  eventTypes: [...Object.values(TicketEventTypes), ...Object.values(ForwardingEventTypes)],
  // Forwarding is the support desk's own bookkeeping (its tracker, its mailbox), not the customer's ticket.
  unpublished: Object.values(ForwardingEventTypes),
};
