import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { NotificationEventTypes, type NotificationEvent, type NotificationType } from '../../libs/domain/notifications/events';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

export interface NotificationDoc extends ReadDoc {
  projectId: string;
  title: string;
  message: string;
  type: NotificationType;
  read: boolean;
  readAt: string | null;
  createdAt: string;
}

export const NOTIFICATIONS_LIST: ListShape = { query: 'GET /v1/notifications', equal: ['projectId'], residual: ['type'], sortable: ['createdAt'] };
export const NOTIFICATIONS_BY_READ_LIST: ListShape = { query: 'GET /v1/notifications?read=, PATCH /v1/notifications (the unread ones)', equal: ['projectId', 'read'], residual: ['type'], sortable: ['createdAt'] };
const LISTS: ListShape[] = [NOTIFICATIONS_LIST, NOTIFICATIONS_BY_READ_LIST];

/** A project's notifications (spec 4.15): a deleted one leaves the model. */
export const notificationsProjection: DocumentProjection<NotificationDoc> & { lists: ListShape[] } = {
  name: 'notifications',
  version: 1,
  eventTypes: [NotificationEventTypes.NotificationCreated, NotificationEventTypes.NotificationRead, NotificationEventTypes.NotificationDeleted],
  creates: [NotificationEventTypes.NotificationCreated],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { notificationId: string }).notificationId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as NotificationEvent;
    switch (event.type) {
      case 'notifications.NotificationCreated.v1': {
        const d = event.data;
        return { id: d.notificationId, _position: recorded.position, projectId: d.projectId, title: d.title, message: d.message, type: d.type, read: false, readAt: null, createdAt: d.createdAt };
      }
      case 'notifications.NotificationRead.v1':
        return current && { ...current, read: event.data.read, readAt: event.data.read ? event.data.at : null };
      case 'notifications.NotificationDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
