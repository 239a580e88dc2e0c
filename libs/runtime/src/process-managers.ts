import type { CheckpointStore } from '../../subscriptions/src/checkpoint-store';
import { SubscriptionRunner } from '../../subscriptions/src/subscription-runner';
import { DocumentProjector } from '../../subscriptions/src/document-projection';
import { EFFECTS_MODEL, type EffectDoc } from './outbox/effect-doc';
import type { ContextModule, RuntimeServices, Timer } from './context-module';
import type { JobOperationHandler } from './job-ports';

/**
 * Everything that acts on the log besides projections, as the context modules declare it: their
 * process managers (each on its own checkpointed subscription), their job handlers and their durable
 * timers (the jobs context's executor, which runs every context's job handlers, among them).
 */
export class ProcessManagers {
  readonly sagas: SubscriptionRunner[];
  readonly timers: Timer[];

  constructor(services: Omit<RuntimeServices, 'jobHandlers'>, checkpoints: CheckpointStore, modules: readonly ContextModule[]) {
    const jobHandlers: Record<string, JobOperationHandler> = {};
    const rt: RuntimeServices = { ...services, jobHandlers };
    const onError = (name: string, err: unknown) => rt.logger.error({ err: String(err), subscription: name }, 'saga batch failed; retrying');
    this.sagas = modules.flatMap((m) => m.processManagers?.(rt) ?? []).map((h) => new SubscriptionRunner(rt.events, checkpoints, h, onError));
    Object.assign(jobHandlers, ...modules.map((m) => m.jobHandlers?.(rt) ?? {}));
    this.timers = [rt.outbox, ...modules.flatMap((m) => m.timers?.(rt) ?? [])];
    // The outbox's wake-ups follow its due-time index across rebuilds.
    rt.projections.onRunner(EFFECTS_MODEL, (runner) => {
      if (runner.handler instanceof DocumentProjector) (runner.handler as DocumentProjector<EffectDoc>).onWritten((changes) => rt.outbox.observe(changes));
    });
  }

  saga(name: string): SubscriptionRunner | undefined {
    return this.sagas.find((r) => r.name === name);
  }

  async start(): Promise<void> {
    for (const r of this.sagas) await r.start();
    for (const t of this.timers) t.start();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) await t.stop();
    for (const r of this.sagas) await r.stop();
  }
}
