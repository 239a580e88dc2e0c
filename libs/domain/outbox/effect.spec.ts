import { deciderSpec } from '../shared/decider-spec';
import { effectDecider, effectIdFor, type EffectEvent } from './effect';
import { httpRefusalIsPermanent, smtpFailure, smtpRefusalIsPermanent } from './failures';
import { maxAttempts, MESSAGE_RETRY_POLICY, nextAttemptAt, WEBHOOK_RETRY_POLICY, type RetryPolicy } from './retry-policy';

const given = deciderSpec(effectDecider);
const now = '2026-01-01T00:00:00.000Z';
const policy: RetryPolicy = { delaysMs: [1_000, 60_000] };
const scheduled: EffectEvent = {
  type: 'outbox.EffectScheduled.v1',
  data: { effectId: 'x1', kind: 'identity.invitation-mail', target: 'bob@example.com', projectId: 'p1', causeEventId: 'ev1', causePosition: 7, scheduledAt: now },
};
const failed = (attempt: number, retryAt: string): EffectEvent => ({ type: 'outbox.EffectFailedRetryable.v1', data: { effectId: 'x1', attempt, at: now, reason: 'SMTP 451', retryAt } });
const outcome = (attempt: number, o: { ok: true; receipt: Record<string, string> } | { ok: false; retryable: boolean; reason: string }) => ({ type: 'RecordOutcome' as const, effectId: 'x1', attempt, outcome: o, policy, now });

describe('effect decider (one outbox for effects)', () => {
  it('derives one id per (cause, kind, target): a replayed cause names the same effect', () => {
    expect(effectIdFor('ev1', 'mail', 'a@x')).toBe(effectIdFor('ev1', 'mail', 'a@x'));
    expect(new Set([effectIdFor('ev1', 'mail', 'a@x'), effectIdFor('ev2', 'mail', 'a@x'), effectIdFor('ev1', 'tracker', 'a@x'), effectIdFor('ev1', 'mail', 'b@x')]).size).toBe(4);
  });

  it('schedules once: a second schedule of the same effect records nothing', () => {
    given([]).when({ type: 'ScheduleEffect', effectId: 'x1', kind: 'identity.invitation-mail', target: 'bob@example.com', projectId: 'p1', causeEventId: 'ev1', causePosition: 7, now }).then([scheduled]);
    given([scheduled]).when({ type: 'ScheduleEffect', effectId: 'x1', kind: 'identity.invitation-mail', target: 'bob@example.com', projectId: 'p1', causeEventId: 'ev1', causePosition: 7, now }).thenNothingHappens();
  });

  it('records a success for the attempt it waits for, and nothing for a duplicate or a stale report', () => {
    const ok = { ok: true as const, receipt: { messageId: '<m@x>' } };
    const succeeded: EffectEvent = { type: 'outbox.EffectSucceeded.v1', data: { effectId: 'x1', attempt: 1, at: now, receipt: { messageId: '<m@x>' } } };
    given([scheduled]).when(outcome(1, ok)).then([succeeded]);
    given([scheduled, succeeded]).when(outcome(1, ok)).thenNothingHappens();
    given([scheduled]).when(outcome(2, ok)).thenNothingHappens();
    given([]).when(outcome(1, ok)).thenNothingHappens();
  });

  it('makes a retryable failure due again after the policy’s delay, and gives up once the attempts are spent', () => {
    const retry = { ok: false as const, retryable: true, reason: 'SMTP 451' };
    given([scheduled]).when(outcome(1, retry)).then([failed(1, '2026-01-01T00:00:01.000Z')]);
    given([scheduled, failed(1, '2026-01-01T00:00:01.000Z')]).when(outcome(2, retry)).then([failed(2, '2026-01-01T00:01:00.000Z')]);
    given([scheduled, failed(1, 'a'), failed(2, 'b')])
      .when(outcome(3, retry))
      .then([{ type: 'outbox.EffectFailedPermanently.v1', data: { effectId: 'x1', attempt: 3, at: now, reason: 'gave up after 3 attempts: SMTP 451' } }]);
  });

  it('fails a permanent refusal at once, and nothing is due after it', () => {
    const refused: EffectEvent = { type: 'outbox.EffectFailedPermanently.v1', data: { effectId: 'x1', attempt: 1, at: now, reason: 'SMTP 550' } };
    given([scheduled]).when(outcome(1, { ok: false, retryable: false, reason: 'SMTP 550' })).then([refused]);
    given([scheduled, refused]).when(outcome(2, { ok: false, retryable: true, reason: 'again' })).thenNothingHappens();
    const state = [scheduled, refused].reduce(effectDecider.evolve, effectDecider.initialState());
    expect(state).toMatchObject({ status: 'failed', dueAt: null, attempts: 1 });
  });
});

describe('retry policy and failure classification', () => {
  it('keeps the webhook schedule of DECISIONS 10: 8 attempts over more than 24 hours', () => {
    expect(maxAttempts(WEBHOOK_RETRY_POLICY)).toBe(8);
    expect(WEBHOOK_RETRY_POLICY.delaysMs.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3_600_000);
    expect(MESSAGE_RETRY_POLICY.delaysMs.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3_600_000);
    expect(nextAttemptAt(WEBHOOK_RETRY_POLICY, 1, now)).toBe('2026-01-01T00:00:05.000Z');
    expect(nextAttemptAt(WEBHOOK_RETRY_POLICY, 8, now)).toBeNull();
  });

  it('calls SMTP 5xx permanent and anything else retryable; the tracker’s own refusals permanent', () => {
    expect([550, 554, 421, 451, undefined].map((responseCode) => smtpRefusalIsPermanent(Object.assign(new Error('x'), { responseCode })))).toEqual([true, true, false, false, false]);
    expect(smtpRefusalIsPermanent(null)).toBe(false);
    expect(smtpFailure(Object.assign(new Error('try again later'), { responseCode: 451 }))).toEqual({ ok: false, retryable: true, reason: 'SMTP 451' });
    expect(smtpFailure(Object.assign(new Error('no such user'), { responseCode: 550 }))).toEqual({ ok: false, retryable: false, reason: 'SMTP 550' });
    expect(smtpFailure(new Error('connect ECONNREFUSED'))).toEqual({ ok: false, retryable: true, reason: 'connect ECONNREFUSED' });
    expect([400, 404, 410, 422, 401, 403, 408, 429, 500, 503, null].map(httpRefusalIsPermanent)).toEqual([true, true, true, true, false, false, false, false, false, false, false]);
  });
});
