import { logRecorder, projected } from '../../test/support/projector';
import { notificationsProjection } from './notifications.projection';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const created = (title: string, type: string, s: number) => ({ projectId: 'p1', title, message: `${title}!`, type, createdAt: at(s) });

describe('notifications read model', () => {
  it('opens a notification unread, marks it read and unread again, and removes it when deleted', async () => {
    const log = logRecorder();
    const n = log.stream('notification-n1', { notificationId: 'n1', projectId: 'p1' });
    const model = await projected(notificationsProjection);
    await model.handle(n('notifications.NotificationCreated.v1', created('Job failed', 'error', 0)));
    expect(await model.get('n1')).toEqual({ id: 'n1', _position: 1, projectId: 'p1', title: 'Job failed', message: 'Job failed!', type: 'error', read: false, readAt: null, createdAt: at(0) });
    await model.handle(n('notifications.NotificationRead.v1', { read: true, at: at(5) }));
    expect(await model.get('n1')).toMatchObject({ read: true, readAt: at(5) });
    await model.handle(n('notifications.NotificationRead.v1', { read: false, at: at(6) }));
    expect(await model.get('n1')).toMatchObject({ read: false, readAt: null });
    await model.handle(n('notifications.NotificationDeleted.v1', { deletedAt: at(7) }));
    expect(await model.all()).toEqual([]);
  });

  it('serves the unread list of a project (what PATCH marks read), filtered by type, newest first', async () => {
    const log = logRecorder();
    const model = await projected(notificationsProjection);
    const s = (id: string, projectId = 'p1') => log.stream(`notification-${id}`, { notificationId: id, projectId });
    await model.handle(
      s('a')('notifications.NotificationCreated.v1', created('a', 'info', 1)),
      s('b')('notifications.NotificationCreated.v1', created('b', 'error', 2)),
      s('c')('notifications.NotificationCreated.v1', created('c', 'error', 3)),
      s('d', 'p2')('notifications.NotificationCreated.v1', { ...created('d', 'error', 4), projectId: 'p2' }),
      s('c')('notifications.NotificationRead.v1', { read: true, at: at(9) }),
    );
    const ids = async (filter: Record<string, string | boolean>) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: -1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1', read: false })).toEqual(['b', 'a']);
    expect(await ids({ projectId: 'p1', type: 'error' })).toEqual(['c', 'b']);
  });

  it('creates nothing from a read of a notification it never saw, and keeps a deleted one deleted through a replay', async () => {
    const log = logRecorder();
    const lost = log.stream('notification-lost', { notificationId: 'lost', projectId: 'p1' });
    const n = log.stream('notification-n1', { notificationId: 'n1', projectId: 'p1' });
    const events = [lost('notifications.NotificationRead.v1', { read: true, at: at(1) }), n('notifications.NotificationCreated.v1', created('x', 'info', 0)), n('notifications.NotificationDeleted.v1', { deletedAt: at(2) })];
    const model = await projected(notificationsProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect(await model.all()).toEqual([]);
  });
});
