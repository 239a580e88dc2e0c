import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { CurrentJob, OperationCommand } from '../../libs/domain/shared/operations';
import { modeOfScope } from '../../libs/domain/shared/scope';
import { ProviderError } from '../../libs/providers/src/driver.port';
import { isoNow, systemClock, type Clock } from '../../libs/runtime/src/clock';
import type { DriverFor, JobBackedResource, JobOperationHandler, JobToRun } from '../../libs/runtime/src/job-ports';

type LiveState<Op extends string> = { status: string; id: string; currentJob: CurrentJob<Op> };

/**
 * The job process of every job-backed resource: marks the operation begun, calls the driver with
 * the attempt's idempotency token, and records the outcome on the resource. Every step is an
 * idempotent command, so a re-run after a crash repeats nothing that already happened.
 */
export class JobOperations<Op extends string, St extends { status: string }, R> implements JobOperationHandler {
  constructor(
    private readonly events: EventStore,
    private readonly resource: JobBackedResource<Op, St, R>,
    private readonly driverFor: DriverFor,
    private readonly clock: Clock = systemClock,
  ) {}

  private step(job: JobToRun, command: OperationCommand<R>, ctx: CommandContext) {
    return handleCommand(this.events, this.resource.stream(job.resourceId), this.resource.decider, command, ctx);
  }

  async execute(job: JobToRun, _attempt: number, token: string, ctx: CommandContext): Promise<Record<string, unknown>> {
    const { label, calls } = this.resource;
    const begun = await this.step(job, { type: 'BeginOperation', jobId: job.id, now: isoNow(this.clock) }, ctx).catch((err) => {
      throw new ProviderError(`${label} ${job.resourceId} cannot be worked on: ${(err as Error).message}`, false);
    });
    const state = begun.state as St & Partial<LiveState<Op>>;
    if (state.status === 'none' || !state.id) throw new ProviderError(`${label} ${job.resourceId} does not exist`, false);
    if (state.currentJob?.jobId !== job.id) return { skipped: 'superseded by a later operation' };
    const { providerKind, externalId, spec } = this.resource.target(state as unknown as Exclude<St, { status: 'none' }>);
    const operation = job.operation as Op;
    const result = (await calls[operation](this.driverFor(providerKind, modeOfScope(job.projectId)), { token, externalId, spec })) ?? undefined;
    await this.step(job, { type: 'CompleteOperation', jobId: job.id, now: isoNow(this.clock), result }, ctx);
    return result ? this.resource.jobResult(result) : { operation };
  }

  async onFailed(job: JobToRun, error: string, ctx: CommandContext): Promise<void> {
    await this.step(job, { type: 'FailOperation', jobId: job.id, error, now: isoNow(this.clock) }, ctx).catch(() => undefined);
  }
}
