import type { DomainEvent } from '../shared/domain-error';

/** Compute's job types (spec 2.4), and `<resource>.<operation>` for the resources of spec 4.8 onwards (DECISIONS 14). */
export type JobType = 'instance.create' | 'instance.delete' | 'instance.action' | 'server.create' | 'server.action' | 'catalog.sync' | `${string}.${string}`;
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

export type JobEnqueued = DomainEvent<
  'jobs.JobEnqueued.v1',
  {
    jobId: string;
    projectId: string | null;
    type: JobType;
    /** `instance`, `server`, `catalog`, or a declared resource's kind (`volume`, `elastic-ip`, …). */
    resourceType: string;
    resourceId: string;
    /** What the job does: create, delete, start, stop, restart, reinstall, rescue, terminate, sync… */
    operation: string;
    payload: Record<string, unknown>;
    maxAttempts: number;
    enqueuedAt: string;
  }
>;
export type JobAttemptStarted = DomainEvent<'jobs.JobAttemptStarted.v1', { jobId: string; attempt: number; startedAt: string }>;
export type JobAttemptFailed = DomainEvent<
  'jobs.JobAttemptFailed.v1',
  { jobId: string; attempt: number; error: string; failedAt: string; /** null when no attempt is left */ retryAt: string | null }
>;
export type JobCompleted = DomainEvent<'jobs.JobCompleted.v1', { jobId: string; attempt: number; completedAt: string; result: Record<string, unknown> }>;
export type JobFailed = DomainEvent<'jobs.JobFailed.v1', { jobId: string; attempts: number; error: string; failedAt: string }>;
export type JobRetried = DomainEvent<'jobs.JobRetried.v1', { jobId: string; retriedAt: string; maxAttempts: number }>;

export type JobEvent = JobEnqueued | JobAttemptStarted | JobAttemptFailed | JobCompleted | JobFailed | JobRetried;

export const JobEventTypes = {
  JobEnqueued: 'jobs.JobEnqueued.v1',
  JobAttemptStarted: 'jobs.JobAttemptStarted.v1',
  JobAttemptFailed: 'jobs.JobAttemptFailed.v1',
  JobCompleted: 'jobs.JobCompleted.v1',
  JobFailed: 'jobs.JobFailed.v1',
  JobRetried: 'jobs.JobRetried.v1',
} as const;

export const jobStream = (jobId: string) => `job-${jobId}`;
