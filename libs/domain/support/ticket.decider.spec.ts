import { deciderSpec } from '../shared/decider-spec';
import type { TicketAuthor, TicketEvent, TicketNumberAssigned } from './events';
import { formatTicketNumber } from './events';
import { ticketDecider, type OpenTicket, type UpdateTicket } from './ticket.decider';
import { ticketNumberDecider } from './ticket-number.decider';

const given = deciderSpec(ticketDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const customer: TicketAuthor = { name: 'ci key', email: null, isSupport: false };
const support: TicketAuthor = { name: 'Support', email: 'support@example.com', isSupport: true };
const ids = { ticketId: 't1', projectId: 'p1', number: 'TCK-000001' };

const open: OpenTicket = { type: 'OpenTicket', ...ids, subject: 'Disk full', message: 'My volume is full', priority: 'medium', category: null, author: customer, now };
const opened: TicketEvent = { type: 'support.TicketOpened.v1', data: { ...ids, subject: 'Disk full', message: 'My volume is full', priority: 'medium', category: null, author: customer, openedAt: now } };
const message = (author: TicketAuthor, projectId = 'p1') => ({ type: 'AddTicketMessage', ticketId: 't1', projectId, messageId: 'm1', content: 'Any news?', author, now: later }) as const;
const messageAdded = (author: TicketAuthor): TicketEvent => ({
  type: 'support.TicketMessageAdded.v1',
  data: { ...ids, subject: 'Disk full', messageId: 'm1', content: 'Any news?', author, addedAt: later },
});
const statusChanged = (from: string, to: string, reason: 'update' | 'customer-reply' = 'update') =>
  ({ type: 'support.TicketStatusChanged.v1', data: { ...ids, from, to, reason, changedAt: later } }) as TicketEvent;
const update = (changes: Partial<Pick<UpdateTicket, 'status' | 'priority' | 'category'>>, projectId = 'p1'): UpdateTicket => ({ type: 'UpdateTicket', ticketId: 't1', projectId, ...changes, now: later });
const priorityChanged: TicketEvent = { type: 'support.TicketPriorityChanged.v1', data: { ...ids, from: 'medium', to: 'urgent', changedAt: later } };
const categoryChanged: TicketEvent = { type: 'support.TicketCategoryChanged.v1', data: { ...ids, from: null, to: 'billing', changedAt: later } };

describe('ticket decider', () => {
  describe('OpenTicket', () => {
    it('opens a ticket with its number, original message and author', () => {
      given([]).when(open).then([opened]);
    });

    it('refuses an id already used', () => {
      given([opened]).when(open).thenThrows('CONFLICT');
    });
  });

  describe('AddTicketMessage', () => {
    it('adds a message, carrying the number and subject forwarding needs', () => {
      given([opened]).when(message(customer)).then([messageAdded(customer)]);
      given([opened]).when(message(support)).then([messageAdded(support)]);
    });

    it("reopens a pending or resolved ticket on the customer's reply, not on support's", () => {
      given([opened, statusChanged('open', 'pending')]).when(message(customer)).then([messageAdded(customer), statusChanged('pending', 'open', 'customer-reply')]);
      given([opened, statusChanged('open', 'resolved')]).when(message(customer)).then([messageAdded(customer), statusChanged('resolved', 'open', 'customer-reply')]);
      given([opened, statusChanged('open', 'resolved')]).when(message(support)).then([messageAdded(support)]);
    });

    it('refuses a message on a closed ticket (409 INVALID_STATE naming it)', () => {
      given([opened, statusChanged('open', 'closed')]).when(message(customer)).thenThrows('INVALID_STATE', /TCK-000001 is closed/);
    });

    it("answers NOT_FOUND for a missing or another project's ticket", () => {
      given([]).when(message(customer)).thenThrows('NOT_FOUND');
      given([opened]).when(message(customer, 'p2')).thenThrows('NOT_FOUND');
    });
  });

  describe('UpdateTicket', () => {
    it('moves between open, pending and resolved in any direction, and closes from any of them', () => {
      given([opened]).when(update({ status: 'pending' })).then([statusChanged('open', 'pending')]);
      given([opened, statusChanged('open', 'pending')]).when(update({ status: 'resolved' })).then([statusChanged('pending', 'resolved')]);
      given([opened, statusChanged('open', 'resolved')]).when(update({ status: 'open' })).then([statusChanged('resolved', 'open')]);
      given([opened, statusChanged('open', 'resolved')]).when(update({ status: 'closed' })).then([statusChanged('resolved', 'closed')]);
      given([opened]).when(update({ status: 'closed' })).then([statusChanged('open', 'closed')]);
    });

    it('records each changed field, a close last', () => {
      given([opened]).when(update({ status: 'closed', priority: 'urgent', category: 'billing' })).then([priorityChanged, categoryChanged, statusChanged('open', 'closed')]);
      given([opened]).when(update({ priority: 'urgent', status: 'pending' })).then([statusChanged('open', 'pending'), priorityChanged]);
    });

    it('records nothing when nothing changes, a closed ticket included', () => {
      given([opened]).when(update({})).thenNothingHappens();
      given([opened]).when(update({ status: 'open', priority: 'medium', category: null })).thenNothingHappens();
      given([opened, statusChanged('open', 'closed')]).when(update({ status: 'closed', priority: 'medium' })).thenNothingHappens();
    });

    it('refuses any change to a closed ticket: closed is final (409 INVALID_STATE)', () => {
      const closed = [opened, statusChanged('open', 'closed')];
      given(closed).when(update({ status: 'open' })).thenThrows('INVALID_STATE', /cannot move to open/);
      given(closed).when(update({ priority: 'urgent' })).thenThrows('INVALID_STATE');
      given(closed).when(update({ category: 'billing' })).thenThrows('INVALID_STATE');
    });

    it("answers NOT_FOUND for a missing or another project's ticket", () => {
      given([]).when(update({ status: 'pending' })).thenThrows('NOT_FOUND');
      given([opened]).when(update({ status: 'pending' }, 'p2')).thenThrows('NOT_FOUND');
    });
  });
});

describe('ticket number decider', () => {
  const givenNumbers = deciderSpec(ticketNumberDecider);
  const assign = { type: 'AssignNumber', projectId: 'p1', ownerId: 't9', now } as const;
  const assigned = (sequence: number, ticketId = 't9'): TicketNumberAssigned => ({
    type: 'support.TicketNumberAssigned.v1',
    data: { projectId: 'p1', ticketId, sequence, number: formatTicketNumber(sequence), assignedAt: now },
  });

  it('assigns TCK-000001 first, then the next number of the sequence', () => {
    givenNumbers([]).when(assign).then([assigned(1)]);
    givenNumbers([assigned(1, 'ta'), assigned(2, 'tb')]).when(assign).then([assigned(3)]);
  });

  it('formats six digits, growing past them', () => {
    expect([formatTicketNumber(1), formatTicketNumber(42), formatTicketNumber(999999), formatTicketNumber(1000000)]).toEqual(['TCK-000001', 'TCK-000042', 'TCK-999999', 'TCK-1000000']);
  });
});
