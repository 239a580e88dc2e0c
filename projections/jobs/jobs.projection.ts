import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { modeOfScope, type Mode } from '../../libs/domain/shared/scope';
import { JobEventTypes, type JobEvent, type JobStatus, type JobType } from '../../libs/domain/jobs/events';

export interface JobDoc extends ReadDoc {
  projectId: string | null;
  type: JobType;
  status: JobStatus;
  resourceType: string;
  resourceId: string;
  /** Set for instance jobs, for the `instanceId` filter. */
  instanceId: string | null;
  operation: string;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
  /** Manual retries so far: part of each attempt's idempotency token. */
  retries: number;
  error: string | null;
  /** Pending jobs: when the next attempt may start (the durable retry timer). */
  dueAt: string | null;
  result: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /**
   * The mode of the request that enqueued it (DECISIONS 21); its attempts' events carry it. Absent
   * in documents folded before version 3 (live unless the scope says test).
   */
  mode?: Mode;
}

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const JOBS_LIST: ListShape = { query: 'GET /v1/jobs', equal: ['projectId'], residual: ['instanceId'], sortable: ['createdAt', 'status', 'updatedAt'] };
export const JOBS_BY_STATUS_LIST: ListShape = { query: 'GET /v1/jobs?status=, GET /v1/jobs/failed', equal: ['projectId', 'status'], residual: ['instanceId'], sortable: ['createdAt', 'status', 'updatedAt'] };
export const INSTANCE_JOBS_LIST: ListShape = { query: 'GET /v1/instances/{id}/jobs', equal: ['instanceId'], sortable: ['createdAt', 'status'] };
const LISTS: ListShape[] = [
  JOBS_LIST,
  JOBS_BY_STATUS_LIST,
  INSTANCE_JOBS_LIST,
  { query: 'executor: pending jobs by due time', equal: ['status'], sorts: [[{ field: 'dueAt', direction: 1 }]] },
  { query: 'executor: jobs cut off in processing', equal: ['status'], sorts: [[{ field: 'updatedAt', direction: 1 }]] },
  { query: 'GET /v1/admin/analytics: counts by mode and status', equal: ['mode', 'status'] },
];

/** Serves the job routes and is the executor's due-time index (pending jobs by dueAt). */
export const jobsProjection: DocumentProjection<JobDoc> = {
  name: 'jobs',
  version: 3,
  eventTypes: Object.values(JobEventTypes),
  creates: ['jobs.JobEnqueued.v1'],
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (e) => (e.data as { jobId: string }).jobId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as JobEvent;
    if (event.type === 'jobs.JobEnqueued.v1') {
      const d = event.data;
      return {
        id: d.jobId,
        _position: recorded.position,
        projectId: d.projectId,
        type: d.type,
        status: 'pending',
        resourceType: d.resourceType,
        resourceId: d.resourceId,
        instanceId: d.resourceType === 'instance' ? d.resourceId : null,
        operation: d.operation,
        payload: d.payload,
        attempts: 0,
        maxAttempts: d.maxAttempts,
        retries: 0,
        error: null,
        dueAt: d.enqueuedAt,
        result: null,
        createdAt: d.enqueuedAt,
        updatedAt: d.enqueuedAt,
        startedAt: null,
        completedAt: null,
        mode: recorded.metadata?.mode === 'test' ? 'test' : modeOfScope(d.projectId),
      };
    }
    if (!current) return null;
    switch (event.type) {
      case 'jobs.JobAttemptStarted.v1':
        return { ...current, status: 'processing', attempts: event.data.attempt, dueAt: null, startedAt: current.startedAt ?? event.data.startedAt, updatedAt: event.data.startedAt };
      case 'jobs.JobAttemptFailed.v1':
        return { ...current, status: event.data.retryAt ? 'pending' : current.status, error: event.data.error, dueAt: event.data.retryAt, updatedAt: event.data.failedAt };
      case 'jobs.JobCompleted.v1':
        return { ...current, status: 'completed', error: null, result: event.data.result, dueAt: null, completedAt: event.data.completedAt, updatedAt: event.data.completedAt };
      case 'jobs.JobFailed.v1':
        return { ...current, status: 'failed', error: event.data.error, dueAt: null, completedAt: event.data.failedAt, updatedAt: event.data.failedAt };
      case 'jobs.JobRetried.v1':
        // A fresh budget (DECISIONS 7): the earlier round's error is history (the job's events), not
        // a diagnostic of the pending job.
        return { ...current, status: 'pending', attempts: 0, retries: (current.retries ?? 0) + 1, maxAttempts: event.data.maxAttempts, error: null, dueAt: event.data.retriedAt, completedAt: null, updatedAt: event.data.retriedAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
