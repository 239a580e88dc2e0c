import { JobEventTypes } from '../../libs/domain/jobs/events';
import { jobsProjection } from '../../projections/jobs/jobs.projection';
import { effectsProjection } from '../../projections/effects/effects.projection';
import { JobDispatcher } from '../../sagas/job-executor/job-dispatcher';
import { jobExecutor, jobOperationHandlers } from '../../sagas/job-executor/job-process';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Jobs (spec 2.4, DECISIONS 7): the dispatcher turns a resource's requested operation into a job, one
 * job process runs every job-backed resource's operations, and the executor (a durable timer over the
 * jobs' due times) runs the jobs of every context. The outbox's due-time index (`effects`: mail and
 * ticket forwards of every context, scheduled work like jobs) is registered here as `outboxIndex`; its
 * events are the runtime's own (`outbox.*`, never published), the runtime's outbox runs on it.
 */
export const jobsModule: ContextModule = {
  name: 'jobs',
  projections: [jobsProjection],
  outboxIndex: effectsProjection,
  jobHandlers: (rt) => jobOperationHandlers(rt),
  timers: (rt) => [jobExecutor(rt)],
  processManagers: (rt) => [new JobDispatcher(rt.events, rt.jobResources)],
  eventTypes: Object.values(JobEventTypes),
};
