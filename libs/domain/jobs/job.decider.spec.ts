import { deciderSpec } from '../shared/decider-spec';
import type { JobEnqueued, JobEvent } from './events';
import { jobDecider, retryDelayMs, type JobCommand } from './job.decider';

const given = deciderSpec(jobDecider);
const t0 = '2026-01-01T00:00:00.000Z';
const t = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
const job: JobEnqueued['data'] = {
  jobId: 'j1',
  projectId: 'p1',
  type: 'instance.create',
  resourceType: 'instance',
  resourceId: 'i1',
  operation: 'create',
  payload: { plan: 'pc-t3-medium' },
  maxAttempts: 3,
  enqueuedAt: t0,
};
const enqueued: JobEvent = { type: 'jobs.JobEnqueued.v1', data: job };
const started = (attempt: number, at: string): JobEvent => ({ type: 'jobs.JobAttemptStarted.v1', data: { jobId: 'j1', attempt, startedAt: at } });
const attemptFailed = (attempt: number, at: string, retryAt: string | null): JobEvent => ({ type: 'jobs.JobAttemptFailed.v1', data: { jobId: 'j1', attempt, error: 'boom', failedAt: at, retryAt } });
const completed = (attempt: number, at: string): JobEvent => ({ type: 'jobs.JobCompleted.v1', data: { jobId: 'j1', attempt, completedAt: at, result: { externalId: 'x1' } } });
const jobFailed = (attempts: number, at: string): JobEvent => ({ type: 'jobs.JobFailed.v1', data: { jobId: 'j1', attempts, error: 'boom', failedAt: at } });
const retried = (at: string): JobEvent => ({ type: 'jobs.JobRetried.v1', data: { jobId: 'j1', retriedAt: at, maxAttempts: 3 } });

const start = (attempt: number, now: string): JobCommand => ({ type: 'StartAttempt', attempt, now });
const fail = (attempt: number, now: string): JobCommand => ({ type: 'RecordAttemptFailure', attempt, error: 'boom', now });
const complete = (attempt: number, now: string): JobCommand => ({ type: 'CompleteAttempt', attempt, now, result: { externalId: 'x1' } });
const retry = (now: string): JobCommand => ({ type: 'RetryJob', now });

/** Three attempts, each failed: the job has failed for good. */
const failedForGood = [enqueued, started(1, t(0)), attemptFailed(1, t(10), t(1010)), started(2, t(1010)), attemptFailed(2, t(1020), t(3020)), started(3, t(3020)), attemptFailed(3, t(3030), null), jobFailed(3, t(3030))];

describe('job decider', () => {
  it('waits 1 s before the 2nd attempt, 2 s before the 3rd, doubling after', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000]);
  });

  describe('EnqueueJob', () => {
    it('enqueues a job', () => {
      given([]).when({ type: 'EnqueueJob', job }).then([enqueued]);
    });

    it('refuses the same job twice', () => {
      given([enqueued]).when({ type: 'EnqueueJob', job }).thenThrows('CONFLICT');
    });
  });

  it('answers NOT_FOUND to every other command on a job that does not exist', () => {
    for (const command of [start(1, t0), fail(1, t0), complete(1, t0), retry(t0)]) given([]).when(command).thenThrows('NOT_FOUND');
  });

  describe('StartAttempt', () => {
    it('starts the first attempt of a pending job', () => {
      given([enqueued]).when(start(1, t(5))).then([started(1, t(5))]);
    });

    it('starts only the next attempt, once', () => {
      given([enqueued]).when(start(2, t(5))).thenNothingHappens();
      given([enqueued, started(1, t(0))]).when(start(1, t(5))).thenNothingHappens();
      given([enqueued, started(1, t(0))]).when(start(2, t(5))).thenNothingHappens();
    });

    it('waits for a retry to fall due', () => {
      const history = [enqueued, started(1, t(0)), attemptFailed(1, t(10), t(1010))];
      given(history).when(start(2, t(1009))).thenNothingHappens();
      given(history).when(start(2, t(1010))).then([started(2, t(1010))]);
    });

    it('starts nothing on a completed or failed job', () => {
      given([enqueued, started(1, t(0)), completed(1, t(10))]).when(start(2, t(20))).thenNothingHappens();
      given(failedForGood).when(start(4, t(9000))).thenNothingHappens();
    });
  });

  describe('RecordAttemptFailure', () => {
    it('schedules the next attempt after the retry delay', () => {
      given([enqueued, started(1, t(0))]).when(fail(1, t(10))).then([attemptFailed(1, t(10), t(1010))]);
      given([enqueued, started(1, t(0)), attemptFailed(1, t(10), t(1010)), started(2, t(1010))]).when(fail(2, t(1020))).then([attemptFailed(2, t(1020), t(3020))]);
    });

    it('fails the job when the last attempt fails', () => {
      const history = failedForGood.slice(0, 6);
      given(history).when(fail(3, t(3030))).then([attemptFailed(3, t(3030), null), jobFailed(3, t(3030))]);
    });

    it('ignores a failure of another attempt, or of a job not running', () => {
      given([enqueued, started(1, t(0))]).when(fail(2, t(10))).thenNothingHappens();
      given([enqueued]).when(fail(1, t(10))).thenNothingHappens();
      given([enqueued, started(1, t(0)), attemptFailed(1, t(10), t(1010))]).when(fail(1, t(20))).thenNothingHappens();
      given([enqueued, started(1, t(0)), completed(1, t(10))]).when(fail(1, t(20))).thenNothingHappens();
    });
  });

  describe('CompleteAttempt', () => {
    it('completes the running attempt with its result', () => {
      given([enqueued, started(1, t(0))]).when(complete(1, t(10))).then([completed(1, t(10))]);
    });

    it('ignores another attempt, a repeat, or a job not running', () => {
      given([enqueued, started(1, t(0))]).when(complete(2, t(10))).thenNothingHappens();
      given([enqueued, started(1, t(0)), completed(1, t(10))]).when(complete(1, t(20))).thenNothingHappens();
      given([enqueued]).when(complete(1, t(10))).thenNothingHappens();
    });
  });

  describe('RetryJob', () => {
    it('re-opens a failed job with a fresh budget of attempts', () => {
      given(failedForGood).when(retry(t(9000))).then([retried(t(9000))]);
      given([...failedForGood, retried(t(9000))]).when(start(1, t(9000))).then([started(1, t(9000))]);
    });

    it('refuses a job that has not failed', () => {
      given([enqueued]).when(retry(t(10))).thenThrows('RETRY_FAILED', /pending/);
      given([enqueued, started(1, t(0))]).when(retry(t(10))).thenThrows('RETRY_FAILED', /processing/);
      given([enqueued, started(1, t(0)), completed(1, t(10))]).when(retry(t(20))).thenThrows('RETRY_FAILED', /completed/);
      given([...failedForGood, retried(t(9000))]).when(retry(t(9001))).thenThrows('RETRY_FAILED');
    });
  });
});
