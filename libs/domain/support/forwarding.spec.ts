import { deciderSpec } from '../shared/decider-spec';
import { forwardingDecider, forwardMail, forwardMarker, forwardSourceOf, forwardStep, trackerComment, trackerIssue, type ForwardSource } from './forwarding';

const at = '2026-01-01T00:00:00.000Z';
const author = { name: 'ops-key', email: null, isSupport: false };
const opened = { id: 'e1', type: 'support.TicketOpened.v1', data: { ticketId: 't1', projectId: 'p1', number: 'TCK-000007', subject: 'Disk\r\nBcc: x@evil', message: 'full', priority: 'high', category: null, author, openedAt: at } };
const added = { id: 'e2', type: 'support.TicketMessageAdded.v1', data: { ticketId: 't1', projectId: 'p1', number: 'TCK-000007', subject: 'Disk', messageId: 'm1', content: 'any news?', author, addedAt: at } };
const ticket = forwardSourceOf(opened) as Extract<ForwardSource, { kind: 'ticket' }>;
const message = forwardSourceOf(added) as Extract<ForwardSource, { kind: 'message' }>;
const base = { ticketId: 't1', projectId: 'p1', number: 'TCK-000007' };
const started = { type: 'support.TicketForwardStarted.v1' as const, data: { ...base, channel: 'tracker' as const, sourceEventId: 'e1', kind: 'ticket' as const, startedAt: at } };
const forwarded = { type: 'support.TicketForwarded.v1' as const, data: { ...base, channel: 'tracker' as const, sourceEventId: 'e1', issueNumber: 42, mailMessageId: null, forwardedAt: at } };
const given = deciderSpec(forwardingDecider);
const fold = (events: Array<typeof started | typeof forwarded>) => events.reduce(forwardingDecider.evolve, forwardingDecider.initialState());

describe('ticket forwarding decider', () => {
  it('reads only new tickets and messages', () => {
    expect(ticket).toMatchObject({ kind: 'ticket', eventId: 'e1', text: 'full', priority: 'high' });
    expect(message).toMatchObject({ kind: 'message', eventId: 'e2', text: 'any news?', messageId: 'm1' });
    expect(forwardSourceOf({ id: 'e3', type: 'support.TicketStatusChanged.v1', data: {} })).toBeNull();
  });

  it('sends a source once: send, then check after an attempt was recorded, then settled', () => {
    expect(forwardStep(fold([]), 'e1')).toBe('send');
    expect(forwardStep(fold([started]), 'e1')).toBe('check');
    expect(forwardStep(fold([started, forwarded]), 'e1')).toBe('settled');
    expect(fold([started, forwarded]).issueNumber).toBe(42);
    given([]).when({ type: 'StartForward', channel: 'tracker', source: ticket, now: at }).then([started]);
    given([started]).when({ type: 'StartForward', channel: 'tracker', source: ticket, now: at }).thenNothingHappens();
    given([started]).when({ type: 'RecordForward', channel: 'tracker', source: ticket, receipt: { issueNumber: 42 }, now: at }).then([forwarded]);
    given([started, forwarded]).when({ type: 'RecordForward', channel: 'tracker', source: ticket, receipt: { issueNumber: 43 }, now: at }).thenNothingHappens();
    given([started, forwarded]).when({ type: 'AbandonForward', channel: 'tracker', source: ticket, reason: 'x', now: at }).thenNothingHappens();
  });

  it('lets a ticket’s messages follow once the ticket’s own forward is settled, forwarded or abandoned', () => {
    expect(fold([]).ticketSettled).toBe(false);
    expect(fold([started]).ticketSettled).toBe(false);
    expect(fold([started, forwarded]).ticketSettled).toBe(true);
    const abandoned = (kind: 'ticket' | 'message', sourceEventId: string) => ({ type: 'support.TicketForwardAbandoned.v1' as const, data: { ...base, channel: 'tracker' as const, sourceEventId, kind, reason: 'x', abandonedAt: at } });
    expect([abandoned('message', 'e2')].reduce(forwardingDecider.evolve, forwardingDecider.initialState()).ticketSettled).toBe(false);
    expect([abandoned('ticket', 'e1')].reduce(forwardingDecider.evolve, forwardingDecider.initialState())).toMatchObject({ ticketSettled: true, issueNumber: null });
  });

  it('records a message forward with its comment, and an abandon with its reason', () => {
    given([started, forwarded])
      .when({ type: 'RecordForward', channel: 'tracker', source: message, receipt: { issueNumber: 42, commentId: 9 }, now: at })
      .then([{ type: 'support.TicketMessageForwarded.v1', data: { ...base, channel: 'tracker', sourceEventId: 'e2', messageId: 'm1', issueNumber: 42, commentId: 9, mailMessageId: null, forwardedAt: at } }]);
    given([])
      .when({ type: 'AbandonForward', channel: 'email', source: message, reason: 'mail refused with SMTP 550', now: at })
      .then([{ type: 'support.TicketForwardAbandoned.v1', data: { ...base, channel: 'email', sourceEventId: 'e2', kind: 'message', reason: 'mail refused with SMTP 550', abandonedAt: at } }]);
  });

  it('renders one-line subjects and titles naming the ticket number, and marks tracker texts with the source event', () => {
    const mail = forwardMail(ticket, 'desk@example.com');
    expect(mail.subject).toBe('[TCK-000007] Disk Bcc: x@evil');
    expect(mail.messageId).toBe('<ticket-forward-e1@cloud-provisioning.invalid>');
    expect(forwardMail(message, 'desk@example.com').subject).toBe('Re: [TCK-000007] Disk');
    expect(trackerIssue(ticket).title).toBe('[TCK-000007] Disk Bcc: x@evil');
    expect(trackerIssue(ticket).body).toContain(forwardMarker('e1'));
    expect(trackerComment(message).body).toContain(forwardMarker('e2'));
    expect(trackerComment(message).body).toContain('TCK-000007');
  });

  it("names the bare project, and says test mode for a test key's ticket (DECISIONS 21)", () => {
    expect(forwardMail(ticket, 'desk@example.com').text).toContain('in project p1\n');
    const testTicket = forwardSourceOf({ ...opened, data: { ...opened.data, projectId: 'p1:test' } }) as Extract<ForwardSource, { kind: 'ticket' }>;
    expect(forwardMail(testTicket, 'desk@example.com').text).toContain('in project p1 (test mode)');
    expect(trackerIssue(testTicket).body).toContain('project `p1 (test mode)`');
  });

  it("threads a message's mail under its ticket's once the ticket was mailed (In-Reply-To), and remembers that Message-ID", () => {
    const mailed = { type: 'support.TicketForwarded.v1' as const, data: { ...base, channel: 'email' as const, sourceEventId: 'e1', issueNumber: null, mailMessageId: '<ticket-forward-e1@cloud-provisioning.invalid>', forwardedAt: at } };
    const state = fold([mailed as never]);
    expect(state.mailMessageId).toBe('<ticket-forward-e1@cloud-provisioning.invalid>');
    expect(forwardMail(message, 'desk@example.com', state.mailMessageId).inReplyTo).toBe('<ticket-forward-e1@cloud-provisioning.invalid>');
    expect(forwardMail(message, 'desk@example.com', null).inReplyTo).toBeUndefined();
    expect(forwardMail(ticket, 'desk@example.com', 'x').inReplyTo).toBeUndefined();
  });
});
