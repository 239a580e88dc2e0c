import { numberSequenceDecider } from '../shared/number-sequence';
import { formatTicketNumber, TicketEventTypes } from './events';

/**
 * A project's ticket numbers (DECISIONS 17): the shared gapless sequence (libs/domain/shared/
 * number-sequence.ts) over one stream per project whose n-th event assigns `TCK-<n>`.
 */
export const ticketNumberDecider = numberSequenceDecider({ eventType: TicketEventTypes.TicketNumberAssigned, ownerField: 'ticketId', format: (n) => formatTicketNumber(n) });
