import type { RuntimeServices } from '../../libs/runtime/src/context-module';
import type { JobOperationHandler } from '../../libs/runtime/src/job-ports';
import { DocumentProjector } from '../../libs/subscriptions/src/document-projection';
import { jobsProjection, type JobDoc } from '../../projections/jobs/jobs.projection';
import { JobOperations } from '../job-operations/job-operations';
import { JobExecutor } from './job-executor';

/** The one job process of every registered job-backed resource, by the jobs' `resourceType`. */
export function jobOperationHandlers(rt: RuntimeServices): Record<string, JobOperationHandler> {
  return Object.fromEntries(rt.jobResources.map((r) => [r.resourceType, new JobOperations(rt.events, r, (kind, mode) => rt.drivers.get(kind, mode), rt.clock)]));
}

/**
 * The job executor of one runtime, running every context's job handlers (`rt.jobHandlers`). It works
 * from the jobs projector's change feed and wake-ups, followed across rebuilds.
 */
export function jobExecutor(rt: RuntimeServices): JobExecutor {
  const executor = new JobExecutor(rt.events, () => rt.projections.collection(jobsProjection), { ...rt.jobHandlers }, rt.logger, {
    concurrency: rt.config.jobConcurrency,
    clock: rt.clock,
    ready: async () => {
      const head = await rt.events.headPosition();
      if (!(await rt.projections.runner(jobsProjection.name).waitFor(head, 300_000))) throw new Error(`jobs projection still behind position ${head} after 300 s`);
    },
  });
  rt.projections.onRunner(jobsProjection.name, (runner) => {
    if (runner.handler instanceof DocumentProjector) (runner.handler as DocumentProjector<JobDoc>).onWritten((changes) => executor.observe(changes));
    runner.onProgress(() => executor.poke());
  });
  return executor;
}
