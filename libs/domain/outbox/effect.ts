import { v5 as uuidv5 } from 'uuid';
import type { Decider, DomainEvent } from '../shared/domain-error';
import type { RetryPolicy } from './retry-policy';
import { nextAttemptAt } from './retry-policy';

/**
 * An effect on the outside world (a mail, a forward to the issue tracker): keyed by the event that
 * caused it, its schedule, attempts and outcome on its own stream `effect-<id>`. A kind whose
 * receiver can be asked what it got after a crash records its own start (the tracker's
 * TicketForwardStarted, which is contract). The type prefix
 * `outbox` is internal (never published, like `idempotency`): the effects are the service's own
 * bookkeeping; a context records what an effect achieved in its own events where that is contract.
 */
export const effectStream = (effectId: string) => `effect-${effectId}`;

const EFFECT_IDS = '0b8f3c52-6d1e-5a47-b9c0-7e2d41a5f3b6';

/** One effect per (causing event, kind, target): a replayed cause finds its effect scheduled already. */
export const effectIdFor = (causeEventId: string, kind: string, target: string): string => uuidv5(`${kind}/${causeEventId}/${target}`, EFFECT_IDS);

export const EffectEventTypes = {
  EffectScheduled: 'outbox.EffectScheduled.v1',
  EffectSucceeded: 'outbox.EffectSucceeded.v1',
  EffectFailedRetryable: 'outbox.EffectFailedRetryable.v1',
  EffectFailedPermanently: 'outbox.EffectFailedPermanently.v1',
} as const;

type Base = { effectId: string };
export type EffectScheduled = DomainEvent<
  typeof EffectEventTypes.EffectScheduled,
  Base & { kind: string; target: string; projectId: string; causeEventId: string; causePosition: number; scheduledAt: string }
>;
/** `receipt`: what the receiver answered (an issue number, a Message-ID), for the kind's own record. */
export type EffectSucceeded = DomainEvent<typeof EffectEventTypes.EffectSucceeded, Base & { attempt: number; at: string; receipt: Record<string, string | number | null> }>;
export type EffectFailedRetryable = DomainEvent<typeof EffectEventTypes.EffectFailedRetryable, Base & { attempt: number; at: string; reason: string; retryAt: string }>;
export type EffectFailedPermanently = DomainEvent<typeof EffectEventTypes.EffectFailedPermanently, Base & { attempt: number; at: string; reason: string }>;
export type EffectEvent = EffectScheduled | EffectSucceeded | EffectFailedRetryable | EffectFailedPermanently;

/** What one attempt came to: a receipt, or a failure the classification called retryable or not. */
export type EffectOutcome = { ok: true; receipt: Record<string, string | number | null> } | { ok: false; retryable: boolean; reason: string };

export type EffectStatus = 'pending' | 'succeeded' | 'failed';
export type EffectState =
  | { status: 'none' }
  | {
      status: EffectStatus;
      kind: string;
      target: string;
      projectId: string;
      causeEventId: string;
      causePosition: number;
      attempts: number;
      /** When the next attempt is due (null once settled). */
      dueAt: string | null;
    };

export type EffectCommand =
  | { type: 'ScheduleEffect'; effectId: string; kind: string; target: string; projectId: string; causeEventId: string; causePosition: number; now: string }
  | { type: 'RecordOutcome'; effectId: string; attempt: number; outcome: EffectOutcome; policy: RetryPolicy; now: string };

/**
 * One effect's life: scheduled, attempted (numbered from 1), then succeeded or failed for good; a
 * retryable failure is due again after the policy's delay until the policy's attempts are spent.
 * An outcome is recorded only for the attempt the effect waits for, so a duplicate changes nothing.
 */
export const effectDecider: Decider<EffectCommand, EffectEvent, EffectState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === EffectEventTypes.EffectScheduled) {
      const { kind, target, projectId, causeEventId, causePosition, scheduledAt } = event.data;
      return { status: 'pending', kind, target, projectId, causeEventId, causePosition, attempts: 0, dueAt: scheduledAt };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case EffectEventTypes.EffectSucceeded:
        return { ...state, status: 'succeeded', attempts: event.data.attempt, dueAt: null };
      case EffectEventTypes.EffectFailedRetryable:
        return { ...state, attempts: event.data.attempt, dueAt: event.data.retryAt };
      case EffectEventTypes.EffectFailedPermanently:
        return { ...state, status: 'failed', attempts: event.data.attempt, dueAt: null };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ScheduleEffect': {
        if (state.status !== 'none') return [];
        const { type: _t, now, ...data } = command;
        return [{ type: EffectEventTypes.EffectScheduled, data: { ...data, scheduledAt: now } }];
      }
      case 'RecordOutcome': {
        if (state.status !== 'pending' || command.attempt !== state.attempts + 1) return [];
        const base = { effectId: command.effectId, attempt: command.attempt, at: command.now };
        const o = command.outcome;
        if (o.ok) return [{ type: EffectEventTypes.EffectSucceeded, data: { ...base, receipt: o.receipt } }];
        const retryAt = o.retryable ? nextAttemptAt(command.policy, command.attempt, command.now) : null;
        if (retryAt) return [{ type: EffectEventTypes.EffectFailedRetryable, data: { ...base, reason: o.reason, retryAt } }];
        const reason = o.retryable ? `gave up after ${command.attempt} attempts: ${o.reason}` : o.reason;
        return [{ type: EffectEventTypes.EffectFailedPermanently, data: { ...base, reason } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
