import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { effectsProjection as projection, type EffectDoc } from './effects.projection';

const t0 = '2026-01-01T00:00:00.000Z';
let position = 0;
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => ({ id: `e${++position}`, streamId: 'effect-x1', revision: 0, position, type, data, metadata: {} as RecordedEvent['metadata'], recordedAt: t0 }) as RecordedEvent;
const fold = (events: RecordedEvent[]) => events.reduce<EffectDoc | null>((doc, e) => projection.evolve(doc, e), null);
const scheduled = recorded('outbox.EffectScheduled.v1', { effectId: 'x1', kind: 'identity.invitation-mail', target: 'm1', projectId: 'p1', causeEventId: 'ev1', causePosition: 3, scheduledAt: t0 });

describe('effects projection (the outbox’s due-time index)', () => {
  it('keeps a scheduled effect due at once, then at each retry, and lists its attempts', () => {
    expect(fold([scheduled])).toMatchObject({ id: 'x1', status: 'pending', due: true, dueAt: t0, attempts: [] });
    const retryAt = '2026-01-01T00:00:01.000Z';
    const retried = fold([scheduled, recorded('outbox.EffectFailedRetryable.v1', { effectId: 'x1', attempt: 1, at: t0, reason: 'SMTP 451', retryAt })]);
    expect(retried).toMatchObject({ status: 'pending', due: true, dueAt: retryAt, attempts: [{ attempt: 1, success: false, error: 'SMTP 451' }] });
  });

  it('takes a settled effect out of the index, succeeded or failed for good', () => {
    const ok = fold([scheduled, recorded('outbox.EffectSucceeded.v1', { effectId: 'x1', attempt: 1, at: t0, receipt: {} })]);
    expect(ok).toMatchObject({ status: 'succeeded', due: false, dueAt: null, attempts: [{ attempt: 1, success: true }] });
    const failed = fold([scheduled, recorded('outbox.EffectFailedPermanently.v1', { effectId: 'x1', attempt: 1, at: t0, reason: 'SMTP 550' })]);
    expect(failed).toMatchObject({ status: 'failed', due: false, dueAt: null });
  });

  it('ignores an outcome for an effect it never saw scheduled', () => {
    expect(fold([recorded('outbox.EffectSucceeded.v1', { effectId: 'x1', attempt: 1, at: t0, receipt: {} })])).toBeNull();
  });
});
