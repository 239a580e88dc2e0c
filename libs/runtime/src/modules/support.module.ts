import { TicketEventTypes } from '../../../domain/support/events';
import { supportMessagesProjection } from '../../../../projections/support-messages/support-messages.projection';
import { supportTicketsProjection } from '../../../../projections/support-tickets/support-tickets.projection';
import type { ContextModule } from '../context-module';

/**
 * Support tickets (spec 2.6, 4.13, DECISIONS 17). Forwarding each new ticket and message by email and
 * to an issue tracker is the next piece: process managers here, fed by TicketOpened and
 * TicketMessageAdded, whose data is all they need.
 */
export const supportModule: ContextModule = {
  name: 'support',
  projections: [supportTicketsProjection, supportMessagesProjection],
  eventTypes: Object.values(TicketEventTypes),
};
