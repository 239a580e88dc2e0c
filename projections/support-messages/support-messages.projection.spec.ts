import { ticketStream } from '../../libs/domain/support/events';
import { logRecorder, projected } from '../../test/support/projector';
import { supportMessagesProjection } from './support-messages.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const customer = { name: 'Ada', email: 'ada@example.com', isSupport: false };
const support = { name: 'Support', email: null, isSupport: true };
const ticket = (id: string, log: ReturnType<typeof logRecorder>) => log.stream(ticketStream(id), { ticketId: id, projectId: 'p1', number: `TCK-${id}`, subject: 'Disk full' });
const opened = { message: 'Help', priority: 'high', category: null, author: customer, openedAt: at(0) };

describe('support messages read model: a ticket\'s thread', () => {
  it('keeps each message with its author, time and its place in the ticket\'s stream, and ignores the ticket\'s other events', async () => {
    const log = logRecorder();
    const t = ticket('t1', log);
    const model = await projected(supportMessagesProjection);
    await model.handle(
      t('support.TicketOpened.v1', opened),
      t('support.TicketMessageAdded.v1', { messageId: 'm1', content: 'Looking', author: support, addedAt: at(1) }),
      t('support.TicketStatusChanged.v1', { from: 'open', to: 'pending', reason: 'update', changedAt: at(2) }),
      t('support.TicketMessageAdded.v1', { messageId: 'm2', content: 'Thanks', author: customer, addedAt: at(3) }),
    );
    expect(await model.all()).toEqual([
      { id: 'm1', _position: 2, ticketId: 't1', projectId: 'p1', revision: 1, content: 'Looking', author: support, timestamp: at(1) },
      { id: 'm2', _position: 4, ticketId: 't1', projectId: 'p1', revision: 3, content: 'Thanks', author: customer, timestamp: at(3) },
    ]);
  });

  it('orders a thread by the stream, not by time (two messages of one minute; ids out of order), and keeps tickets apart', async () => {
    const log = logRecorder();
    const t = ticket('t1', log);
    const u = ticket('t2', log);
    const model = await projected(supportMessagesProjection);
    await model.handle(
      t('support.TicketOpened.v1', opened),
      t('support.TicketMessageAdded.v1', { messageId: 'z', content: 'first', author: customer, addedAt: at(5) }),
      u('support.TicketMessageAdded.v1', { messageId: 'other', content: 'elsewhere', author: customer, addedAt: at(5) }),
      t('support.TicketMessageAdded.v1', { messageId: 'b', content: 'second', author: support, addedAt: at(5) }),
      t('support.TicketMessageAdded.v1', { messageId: 'a', content: 'third', author: customer, addedAt: at(5) }),
    );
    const thread = async (ticketId: string) => (await model.collection.find({ filter: { ticketId }, sort: [{ field: 'revision', direction: 1 }] })).items.map((d) => d.content);
    expect(await thread('t1')).toEqual(['first', 'second', 'third']);
    expect(await thread('t2')).toEqual(['elsewhere']);
  });

  it('adds no message twice when the log hands the batch again after a restart', async () => {
    const log = logRecorder();
    const t = ticket('t1', log);
    const events = [t('support.TicketOpened.v1', opened), t('support.TicketMessageAdded.v1', { messageId: 'm1', content: 'Looking', author: support, addedAt: at(1) })];
    const model = await projected(supportMessagesProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(...events);
    await model.handle(events[1]);
    expect(await model.all()).toEqual(once);
    expect(once).toHaveLength(1);
  });
});
