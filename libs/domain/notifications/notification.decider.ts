import { z } from 'zod';
import { DomainError, type Decider } from '../shared/domain-error';
import type { NotificationEvent, NotificationType } from './events';

export const NOTIFICATION_TYPES = ['info', 'warning', 'error', 'success'] as const satisfies readonly NotificationType[];

/** Spec 4.15 and 8: title 1-200, message 1-5000, type info by default. */
export const notificationSchema = z.object({
  title: z.string().min(1).max(200),
  message: z.string().min(1).max(5000),
  type: z.enum(NOTIFICATION_TYPES).default('info'),
});
export type NotificationFields = z.output<typeof notificationSchema>;

export type NotificationCommand =
  | { type: 'CreateNotification'; notificationId: string; projectId: string; fields: NotificationFields; now: string }
  | { type: 'MarkNotificationRead'; notificationId: string; projectId: string; read: boolean; now: string }
  | { type: 'DeleteNotification'; notificationId: string; projectId: string; now: string };

export type NotificationState = { status: 'none' } | { status: 'active' | 'deleted'; projectId: string; read: boolean };

const notFound = () => new DomainError('NOT_FOUND', 'Notification not found');

/** A project's notification: created, marked read (or unread), deleted. Another project's is not found. */
export const notificationDecider: Decider<NotificationCommand, NotificationEvent, NotificationState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'notifications.NotificationCreated.v1':
        return { status: 'active', projectId: event.data.projectId, read: false };
      case 'notifications.NotificationRead.v1':
        return state.status === 'none' ? state : { ...state, read: event.data.read };
      case 'notifications.NotificationDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreateNotification') {
      if (state.status !== 'none') return []; // the same id again (a saga's replay): already there
      const fields = notificationSchema.parse(command.fields);
      return [{ type: 'notifications.NotificationCreated.v1', data: { notificationId: command.notificationId, projectId: command.projectId, ...fields, createdAt: command.now } }];
    }
    if (state.status !== 'active' || state.projectId !== command.projectId) throw notFound();
    if (command.type === 'MarkNotificationRead') {
      if (state.read === command.read) return [];
      return [{ type: 'notifications.NotificationRead.v1', data: { notificationId: command.notificationId, projectId: command.projectId, read: command.read, at: command.now } }];
    }
    return [{ type: 'notifications.NotificationDeleted.v1', data: { notificationId: command.notificationId, projectId: command.projectId, deletedAt: command.now } }];
  },
};
