import { TicketEventTypes } from '../../libs/domain/support/events';
import { ForwardingEventTypes } from '../../libs/domain/support/forwarding';
import { supportMessagesProjection } from '../../projections/support-messages/support-messages.projection';
import { supportTicketsProjection } from '../../projections/support-tickets/support-tickets.projection';
import { mailChannel, TicketForwarding, trackerChannel } from '../../sagas/support-forwarding/ticket-forwarding';
import { githubCompatibleTracker } from '../../sagas/support-forwarding/tracker-client';
import { isoNow } from '../../libs/runtime/src/clock';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Support tickets (spec 2.6, 4.13, DECISIONS 17), and the forwarding of each new ticket and message
 * by email (SUPPORT_FORWARD_EMAIL, through the Mailer) and to a GitHub-compatible issue tracker
 * (TRACKER_URL/REPO/TOKEN): one process manager per channel, each on its own checkpointed
 * subscription, so a tracker that is down delays neither the mail nor any request.
 */
export const supportModule: ContextModule = {
  name: 'support',
  projections: [supportTicketsProjection, supportMessagesProjection],
  processManagers: (rt) => {
    const { forwardEmail, tracker } = rt.config.support;
    const now = () => isoNow(rt.clock);
    return [
      new TicketForwarding(rt.events, 'email', forwardEmail ? mailChannel(rt.mailer, forwardEmail) : null, now, rt.logger),
      new TicketForwarding(rt.events, 'tracker', tracker ? trackerChannel(githubCompatibleTracker(tracker)) : null, now, rt.logger),
    ];
  },
  eventTypes: [...Object.values(TicketEventTypes), ...Object.values(ForwardingEventTypes)],
  // Forwarding is the support desk's own bookkeeping (its tracker, its mailbox), not the customer's ticket.
  unpublished: Object.values(ForwardingEventTypes),
};
