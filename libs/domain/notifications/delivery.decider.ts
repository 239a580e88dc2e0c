import { v5 as uuidv5 } from 'uuid';
import { DomainError, type Decider } from '../shared/domain-error';
import { maxAttempts, nextAttemptAt, WEBHOOK_RETRY_POLICY } from '../outbox/retry-policy';
import type { AttemptOutcome, DeliveryEvent, DeliverySchedule } from './events';

const DELIVERY_IDS = '6f1d2b1e-8a3c-5d47-9e0b-3c2a71f4d5e8';

/** One delivery per (event, endpoint): a replayed fan-out finds it already scheduled. */
export const deliveryIdFor = (eventId: string, endpointId: string): string => uuidv5(`${eventId}/${endpointId}`, DELIVERY_IDS);
/** The Standard Webhooks message id: the same on every attempt and re-send, so receivers can dedupe. */
export const webhookIdOf = (deliveryId: string): string => `msg_${deliveryId}`;

/** Waits after each failed attempt: the outbox's webhook policy (Standard Webhooks; at least 24 hours, DECISIONS 10). */
export const RETRY_DELAYS_MS = WEBHOOK_RETRY_POLICY.delaysMs;
export const MAX_DELIVERY_ATTEMPTS = maxAttempts(WEBHOOK_RETRY_POLICY);

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type AttemptResult = Omit<AttemptOutcome, 'attempt'> & { success: boolean; /** No retry: the endpoint is gone or disabled. */ final?: boolean };

export type DeliveryCommand =
  | { type: 'ScheduleDelivery'; deliveryId: string; endpointId: string; projectId: string; eventId: string; eventPosition: number; eventName: string; now: string }
  | { type: 'RecordAttempt'; deliveryId: string; attempt: number; outcome: AttemptResult }
  /** The first attempt of a delivery nothing was recorded for yet: its one event carries the schedule. */
  | { type: 'RecordFirstAttempt'; deliveryId: string; endpointId: string; projectId: string; schedule: DeliverySchedule; outcome: AttemptResult }
  | { type: 'ResendDelivery'; deliveryId: string; projectId: string; endpointId: string; now: string };

export type DeliveryState =
  | { status: 'none' }
  | { status: DeliveryStatus; endpointId: string; projectId: string; eventName: string; eventPosition: number; eventId: string; attempts: number; budgetFrom: number; dueAt: string | null };

const opened = (d: DeliverySchedule & { endpointId: string; projectId: string }): DeliveryState => ({
  status: 'pending',
  endpointId: d.endpointId,
  projectId: d.projectId,
  eventName: d.eventName,
  eventPosition: d.eventPosition,
  eventId: d.eventId,
  attempts: 0,
  budgetFrom: 0,
  dueAt: d.scheduledAt,
});

/**
 * One event's delivery to one endpoint. Attempts are numbered over the delivery's life (a re-send
 * continues the numbering and gets a fresh budget of MAX_DELIVERY_ATTEMPTS); an outcome is only
 * recorded for the attempt the delivery is waiting for, so a duplicate report changes nothing.
 */
export const deliveryDecider: Decider<DeliveryCommand, DeliveryEvent, DeliveryState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (prior, event) => {
    // A first attempt recorded without a DeliveryScheduled before it opens the delivery itself.
    const state = prior.status === 'none' && event.type !== 'notifications.DeliveryScheduled.v1' && event.type !== 'notifications.DeliveryResent.v1' && event.data.schedule ? opened({ ...event.data.schedule, endpointId: event.data.endpointId, projectId: event.data.projectId }) : prior;
    switch (event.type) {
      case 'notifications.DeliveryScheduled.v1':
        return opened(event.data);
      case 'notifications.DeliveryAttemptSucceeded.v1':
        return state.status === 'none' ? state : { ...state, status: 'delivered', attempts: event.data.attempt, dueAt: null };
      case 'notifications.DeliveryAttemptFailed.v1':
        return state.status === 'none' ? state : { ...state, status: event.data.retryAt ? 'pending' : 'failed', attempts: event.data.attempt, dueAt: event.data.retryAt };
      case 'notifications.DeliveryResent.v1':
        return state.status === 'none' ? state : { ...state, status: 'pending', budgetFrom: state.attempts, dueAt: event.data.resentAt };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ScheduleDelivery': {
        if (state.status !== 'none') return [];
        const { type: _t, now, ...data } = command;
        return [{ type: 'notifications.DeliveryScheduled.v1', data: { ...data, scheduledAt: now } }];
      }
      case 'RecordAttempt': {
        if (state.status !== 'pending' || command.attempt !== state.attempts + 1) return [];
        const { success, final, ...outcome } = command.outcome;
        const base = { deliveryId: command.deliveryId, endpointId: state.endpointId, projectId: state.projectId, attempt: command.attempt, ...outcome };
        if (success) return [{ type: 'notifications.DeliveryAttemptSucceeded.v1', data: base }];
        // Attempts are counted from the last re-send: each re-send gets the policy's whole budget.
        const retryAt = final ? null : nextAttemptAt(WEBHOOK_RETRY_POLICY, command.attempt - state.budgetFrom, outcome.at);
        return [{ type: 'notifications.DeliveryAttemptFailed.v1', data: { ...base, retryAt } }];
      }
      case 'RecordFirstAttempt': {
        if (state.status !== 'none') return [];
        const { deliveryId, endpointId, projectId, schedule } = command;
        const [event] = deliveryDecider.decide({ type: 'RecordAttempt', deliveryId, attempt: 1, outcome: command.outcome }, opened({ ...schedule, endpointId, projectId }));
        return [{ ...event, data: { ...event.data, schedule } } as DeliveryEvent];
      }
      case 'ResendDelivery': {
        if (state.status === 'none' || state.projectId !== command.projectId || state.endpointId !== command.endpointId) throw new DomainError('NOT_FOUND', 'Delivery not found');
        if (state.status !== 'failed') throw new DomainError('INVALID_STATE', `Only a failed delivery can be re-sent; this one is ${state.status}`);
        return [{ type: 'notifications.DeliveryResent.v1', data: { deliveryId: command.deliveryId, endpointId: state.endpointId, projectId: state.projectId, resentAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
