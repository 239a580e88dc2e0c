import { z } from 'zod';
import { DomainError, type Decider } from '../shared/domain-error';
import type { EndpointEvent, EndpointType } from './events';

/** An endpoint whose deliveries have failed for this long without a success is disabled (DECISIONS 17). */
export const AUTO_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

export interface EndpointFields {
  type: EndpointType;
  url: string | null;
  email: string | null;
  events: string[];
  enabled: boolean;
  secretRef: string | null;
}

export type EndpointCommand =
  | { type: 'CreateEndpoint'; endpointId: string; projectId: string; fields: EndpointFields; now: string }
  | { type: 'DisableEndpoint'; endpointId: string; projectId: string; reason: string; now: string }
  | { type: 'DeleteEndpoint'; endpointId: string; projectId: string; now: string };

export type EndpointState = { status: 'none' } | { status: 'active' | 'deleted'; projectId: string; enabled: boolean; secretRef: string | null };

const fieldsSchema = z
  .object({
    type: z.enum(['webhook', 'email']),
    url: z.string().nullable(),
    email: z.string().nullable(),
    events: z.array(z.string().min(1)).min(1),
    enabled: z.boolean(),
    secretRef: z.string().nullable(),
  })
  .refine((f) => (f.type === 'webhook' ? f.url !== null && f.email === null : f.email !== null && f.url === null && f.secretRef === null), 'a webhook has a url, an email endpoint an email');

const notFound = () => new DomainError('NOT_FOUND', 'Notification endpoint not found');

/**
 * A notification endpoint: created (its events already checked against the published names by the
 * handler, its URL against the target rules), disabled once (by the 5-day rule), deleted.
 */
export const endpointDecider: Decider<EndpointCommand, EndpointEvent, EndpointState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'notifications.NotificationEndpointCreated.v1':
        return { status: 'active', projectId: event.data.projectId, enabled: event.data.enabled, secretRef: event.data.secretRef };
      case 'notifications.NotificationEndpointDisabled.v1':
        return state.status === 'none' ? state : { ...state, enabled: false };
      case 'notifications.NotificationEndpointDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateEndpoint': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Notification endpoint ${command.endpointId} already exists`);
        const checked = fieldsSchema.safeParse(command.fields);
        if (!checked.success) throw new DomainError('BAD_REQUEST', checked.error.issues.map((i) => i.message).join('; '));
        return [{ type: 'notifications.NotificationEndpointCreated.v1', data: { endpointId: command.endpointId, projectId: command.projectId, ...command.fields, createdAt: command.now } }];
      }
      case 'DisableEndpoint':
        if (state.status !== 'active' || state.projectId !== command.projectId) throw notFound();
        if (!state.enabled) return [];
        return [{ type: 'notifications.NotificationEndpointDisabled.v1', data: { endpointId: command.endpointId, projectId: command.projectId, reason: command.reason, disabledAt: command.now } }];
      case 'DeleteEndpoint':
        if (state.status !== 'active' || state.projectId !== command.projectId) throw notFound();
        return [{ type: 'notifications.NotificationEndpointDeleted.v1', data: { endpointId: command.endpointId, projectId: command.projectId, secretRef: state.secretRef, deletedAt: command.now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

/** Whether an endpoint failing since `failingSince` (no success after it) is due to be disabled at `now`. */
export const dueForDisable = (failingSince: string | null, now: string): boolean => failingSince !== null && Date.parse(now) - Date.parse(failingSince) >= AUTO_DISABLE_AFTER_MS;
