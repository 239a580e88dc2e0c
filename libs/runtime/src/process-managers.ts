import type { CheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { DocumentProjector } from '../../subscriptions/src/document-projection';
import { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';
import { JobExecutor } from '../../../sagas/job-executor/job-executor';
import { JobOperations } from '../../../sagas/job-operations/job-operations';
import { jobsProjection, type JobDoc } from '../../../projections/jobs/jobs.projection';
import { effectsProjection, type EffectDoc } from '../../../projections/effects/effects.projection';
import type { ContextModule, RuntimeServices, Timer } from './context-module';

/**
 * Everything that acts on the log besides projections: the contexts' process managers (each on its
 * own checkpointed subscription), the job executor with every context's job handlers, and the
 * durable timers.
 */
export class ProcessManagers {
  readonly sagas: SubscriptionRunner[];
  readonly executor: JobExecutor;
  readonly timers: Timer[];

  constructor(
    private readonly rt: RuntimeServices,
    checkpoints: CheckpointStore,
    modules: readonly ContextModule[],
  ) {
    const onError = (name: string, err: unknown) => rt.logger.error({ err: String(err), subscription: name }, 'saga batch failed; retrying');
    this.sagas = modules.flatMap((m) => m.processManagers?.(rt) ?? []).map((h) => new SubscriptionRunner(rt.events, checkpoints, h, onError));
    const jobResources = Object.fromEntries(rt.jobResources.map((r) => [r.resourceType, new JobOperations(rt.events, r, (kind, mode) => rt.drivers.get(kind, mode), rt.clock)]));
    const handlers = Object.assign(jobResources, ...modules.map((m) => m.jobHandlers?.(rt) ?? {}));
    this.executor = new JobExecutor(rt.events, () => rt.projections.collection(jobsProjection), handlers, rt.logger, {
      concurrency: rt.config.jobConcurrency,
      clock: rt.clock,
      ready: async () => {
        const head = await rt.events.headPosition();
        if (!(await rt.projections.runner('jobs').waitFor(head, 300_000))) throw new Error(`jobs projection still behind position ${head} after 300 s`);
      },
    });
    this.timers = [this.executor, rt.outbox, ...modules.flatMap((m) => m.timers?.(rt) ?? [])];
  }

  saga(name: string): SubscriptionRunner | undefined {
    return this.sagas.find((r) => r.name === name);
  }

  async start(): Promise<void> {
    for (const r of this.sagas) await r.start();
    // The executor's change feed and wake-ups follow the jobs projector across rebuilds.
    this.rt.projections.onRunner('jobs', (runner) => {
      if (runner.handler instanceof DocumentProjector) (runner.handler as DocumentProjector<JobDoc>).onWritten((changes) => this.executor.observe(changes));
      runner.onProgress(() => this.executor.poke());
    });
    this.rt.projections.onRunner(effectsProjection.name, (runner) => {
      if (runner.handler instanceof DocumentProjector) (runner.handler as DocumentProjector<EffectDoc>).onWritten((changes) => this.rt.outbox.observe(changes));
    });
    for (const t of this.timers) t.start();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) await t.stop();
    for (const r of this.sagas) await r.stop();
  }
}
