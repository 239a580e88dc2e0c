import { DomainError, type Decider } from '../shared/domain-error';
import type { JobEnqueued, JobEvent, JobStatus } from './events';

export type JobState =
  | { status: 'none' }
  | {
      status: JobStatus;
      jobId: string;
      attempts: number;
      maxAttempts: number;
      /** When the next attempt may start (pending only). */
      dueAt: string | null;
      enqueued: JobEnqueued['data'];
    };

export type EnqueueJob = { type: 'EnqueueJob'; job: JobEnqueued['data'] };
export type StartAttempt = { type: 'StartAttempt'; attempt: number; now: string };
export type RecordAttemptFailure = { type: 'RecordAttemptFailure'; attempt: number; error: string; now: string };
export type CompleteAttempt = { type: 'CompleteAttempt'; attempt: number; now: string; result: Record<string, unknown> };
export type RetryJob = { type: 'RetryJob'; now: string };
export type JobCommand = EnqueueJob | StartAttempt | RecordAttemptFailure | CompleteAttempt | RetryJob;

/** 1 s before the 2nd attempt, 2 s before the 3rd, 4 s before a 4th… (DECISIONS §7). */
export function retryDelayMs(failedAttempt: number): number {
  return 1000 * 2 ** (failedAttempt - 1);
}

export const jobDecider: Decider<JobCommand, JobEvent, JobState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'jobs.JobEnqueued.v1':
        return { status: 'pending', jobId: event.data.jobId, attempts: 0, maxAttempts: event.data.maxAttempts, dueAt: event.data.enqueuedAt, enqueued: event.data };
      case 'jobs.JobAttemptStarted.v1':
        return state.status === 'none' ? state : { ...state, status: 'processing', attempts: event.data.attempt, dueAt: null };
      case 'jobs.JobAttemptFailed.v1':
        return state.status === 'none' ? state : { ...state, status: event.data.retryAt ? 'pending' : state.status, dueAt: event.data.retryAt };
      case 'jobs.JobCompleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'completed', dueAt: null };
      case 'jobs.JobFailed.v1':
        return state.status === 'none' ? state : { ...state, status: 'failed', dueAt: null };
      case 'jobs.JobRetried.v1':
        return state.status === 'none' ? state : { ...state, status: 'pending', attempts: 0, maxAttempts: event.data.maxAttempts, dueAt: event.data.retriedAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'EnqueueJob') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Job ${command.job.jobId} already exists`);
      return [{ type: 'jobs.JobEnqueued.v1', data: command.job }];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Job not found');
    switch (command.type) {
      case 'StartAttempt':
        // Only the next attempt of a pending job whose wait is over; anything else was already done.
        if (state.status !== 'pending' || command.attempt !== state.attempts + 1) return [];
        if (state.dueAt && Date.parse(state.dueAt) > Date.parse(command.now)) return [];
        return [{ type: 'jobs.JobAttemptStarted.v1', data: { jobId: state.jobId, attempt: command.attempt, startedAt: command.now } }];
      case 'RecordAttemptFailure': {
        if (state.status !== 'processing' || command.attempt !== state.attempts) return [];
        // Spec §3.4: a job fails only after 3 attempts in all, whatever the error (a provider's
        // "permanent" error included: providers misreport, and a manual retry costs a client more).
        const last = command.attempt >= state.maxAttempts;
        const retryAt = last ? null : new Date(Date.parse(command.now) + retryDelayMs(command.attempt)).toISOString();
        const failed: JobEvent[] = [{ type: 'jobs.JobAttemptFailed.v1', data: { jobId: state.jobId, attempt: command.attempt, error: command.error, failedAt: command.now, retryAt } }];
        if (last) failed.push({ type: 'jobs.JobFailed.v1', data: { jobId: state.jobId, attempts: command.attempt, error: command.error, failedAt: command.now } });
        return failed;
      }
      case 'CompleteAttempt':
        if (state.status !== 'processing' || command.attempt !== state.attempts) return [];
        return [{ type: 'jobs.JobCompleted.v1', data: { jobId: state.jobId, attempt: command.attempt, completedAt: command.now, result: command.result } }];
      case 'RetryJob':
        if (state.status !== 'failed') throw new DomainError('RETRY_FAILED', `Only a failed job can be retried; this one is ${state.status}`);
        return [{ type: 'jobs.JobRetried.v1', data: { jobId: state.jobId, retriedAt: command.now, maxAttempts: state.enqueued.maxAttempts } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
