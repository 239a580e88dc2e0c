import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { EffectEventTypes, type EffectEvent } from '../../libs/domain/outbox/effect';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import { EFFECTS_MODEL, type EffectDoc } from '../../libs/runtime/src/outbox/effect-doc';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

export type { EffectAttemptRecord, EffectDoc } from '../../libs/runtime/src/outbox/effect-doc';

const LISTS: ListShape[] = [{ query: 'outbox: pending effects by due time', equal: ['due'], sorts: [[{ field: 'dueAt', direction: 1 }]] }];

/** The outbox's effects with their attempts, and the due-time index its one timer polls. */
export const effectsProjection: DocumentProjection<EffectDoc> & { lists: ListShape[] } = {
  name: EFFECTS_MODEL,
  version: 1,
  eventTypes: Object.values(EffectEventTypes),
  creates: [EffectEventTypes.EffectScheduled],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { effectId: string }).effectId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as EffectEvent;
    if (event.type === 'outbox.EffectScheduled.v1') {
      const d = event.data;
      return { id: d.effectId, _position: recorded.position, kind: d.kind, target: d.target, projectId: d.projectId, causeEventId: d.causeEventId, status: 'pending', attempts: [], dueAt: d.scheduledAt, due: true, createdAt: d.scheduledAt, updatedAt: d.scheduledAt };
    }
    if (!current) return null;
    switch (event.type) {
      case 'outbox.EffectSucceeded.v1':
        return { ...current, status: 'succeeded', attempts: [...current.attempts, { attempt: event.data.attempt, at: event.data.at, success: true, error: null }], dueAt: null, due: false, updatedAt: event.data.at };
      case 'outbox.EffectFailedRetryable.v1':
        return { ...current, attempts: [...current.attempts, { attempt: event.data.attempt, at: event.data.at, success: false, error: event.data.reason }], dueAt: event.data.retryAt, due: true, updatedAt: event.data.at };
      case 'outbox.EffectFailedPermanently.v1':
        return { ...current, status: 'failed', attempts: [...current.attempts, { attempt: event.data.attempt, at: event.data.at, success: false, error: event.data.reason }], dueAt: null, due: false, updatedAt: event.data.at };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
