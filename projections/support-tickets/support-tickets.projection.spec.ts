import { logRecorder, projected } from '../../test/support/projector';
import { supportTicketsProjection } from './support-tickets.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const customer = { name: 'Ada', email: 'ada@example.com', isSupport: false };
const support = { name: 'Support', email: null, isSupport: true };
const opened = (projectId = 'p1', m = 0) => ({ projectId, number: 'TCK-000001', subject: 'Disk full', message: 'Help', priority: 'high', category: null, author: customer, openedAt: at(m) });

describe('support tickets read model', () => {
  it('opens a ticket, counts the replies after the original message, and follows status, priority and category', async () => {
    const log = logRecorder();
    const t = log.stream('ticket-t1', { ticketId: 't1', projectId: 'p1', number: 'TCK-000001', subject: 'Disk full' });
    const model = await projected(supportTicketsProjection);
    await model.handle(t('support.TicketOpened.v1', opened()));
    expect(await model.get('t1')).toEqual({ id: 't1', _position: 1, projectId: 'p1', number: 'TCK-000001', subject: 'Disk full', message: 'Help', status: 'open', priority: 'high', category: null, replies: 0, author: customer, createdAt: at(0), updatedAt: at(0) });

    await model.handle(
      t('support.TicketMessageAdded.v1', { messageId: 'm1', content: 'Looking', author: support, addedAt: at(1) }),
      t('support.TicketStatusChanged.v1', { from: 'open', to: 'pending', reason: 'update', changedAt: at(2) }),
      t('support.TicketMessageAdded.v1', { messageId: 'm2', content: 'Thanks', author: customer, addedAt: at(3) }),
      t('support.TicketPriorityChanged.v1', { from: 'high', to: 'urgent', changedAt: at(4) }),
      t('support.TicketCategoryChanged.v1', { from: null, to: 'storage', changedAt: at(5) }),
    );
    expect(await model.get('t1')).toMatchObject({ status: 'pending', priority: 'urgent', category: 'storage', replies: 2, message: 'Help', author: customer, createdAt: at(0), updatedAt: at(5) });
  });

  it('lists a project\'s tickets by last activity, filtered by status', async () => {
    const log = logRecorder();
    const model = await projected(supportTicketsProjection);
    const s = (id: string) => log.stream(`ticket-${id}`, { ticketId: id, projectId: 'p1', number: id, subject: id });
    await model.handle(
      s('a')('support.TicketOpened.v1', opened('p1', 0)),
      s('b')('support.TicketOpened.v1', opened('p1', 1)),
      log.stream('ticket-c', { ticketId: 'c', projectId: 'p2', number: 'c', subject: 'c' })('support.TicketOpened.v1', opened('p2', 2)),
      s('a')('support.TicketMessageAdded.v1', { messageId: 'm', content: 'up', author: customer, addedAt: at(9) }),
      s('b')('support.TicketStatusChanged.v1', { from: 'open', to: 'closed', reason: 'update', changedAt: at(3) }),
    );
    const ids = async (filter: Record<string, string>) => (await model.collection.find({ filter, sort: [{ field: 'updatedAt', direction: -1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1' })).toEqual(['a', 'b']);
    expect(await ids({ projectId: 'p1', status: 'open' })).toEqual(['a']);
  });

  it('counts no reply twice when the log hands it again after a restart, and creates nothing for a ticket it never saw opened', async () => {
    const log = logRecorder();
    const t = log.stream('ticket-t1', { ticketId: 't1', projectId: 'p1', number: 'TCK-000001', subject: 'Disk full' });
    const lost = log.stream('ticket-lost', { ticketId: 'lost', projectId: 'p1', number: 'x', subject: 'x' });
    const events = [lost('support.TicketMessageAdded.v1', { messageId: 'm0', content: 'x', author: customer, addedAt: at(0) }), t('support.TicketOpened.v1', opened()), t('support.TicketMessageAdded.v1', { messageId: 'm1', content: 'Looking', author: support, addedAt: at(1) })];
    const model = await projected(supportTicketsProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(events[2]);
    await model.handle(...events);
    expect((await model.all()).map((d) => [d.id, d.replies])).toEqual([['t1', 1]]);
  });
});
