import { JobEventTypes } from '../../../domain/jobs/events';
import { jobsProjection } from '../../../../projections/jobs/jobs.projection';
import { JobDispatcher } from '../../../../sagas/job-executor/job-dispatcher';
import type { ContextModule } from '../context-module';

/** Jobs (spec 2.4, DECISIONS 7): the dispatcher turns a resource's requested operation into a job. */
export const jobsModule: ContextModule = {
  name: 'jobs',
  projections: [jobsProjection],
  processManagers: (rt) => [new JobDispatcher(rt.events, rt.jobResources)],
  eventTypes: Object.values(JobEventTypes),
};
