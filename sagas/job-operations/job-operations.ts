import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type AnyStreamCommand, type CommandContext, type CommandResult } from '../../libs/eventstore/src/handle-command';
import type { CurrentJob, OperationCommand } from '../../libs/domain/shared/operations';
import { modeOfScope } from '../../libs/domain/shared/scope';
import { ProviderError } from '../../libs/providers/src/driver.port';
import { isoNow, systemClock, type Clock } from '../../libs/runtime/src/clock';
import type { BegunAttempt, DriverFor, JobBackedResource, JobOperationHandler, JobSteps, JobToRun } from '../../libs/runtime/src/job-ports';

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

  private part(job: JobToRun, command: OperationCommand<R>): AnyStreamCommand {
    return { streamId: this.resource.stream(job.resourceId), decider: this.resource.decider, command };
  }

  /**
   * The attempt's steps as parts of the job's appends: BeginOperation with the job's start,
   * CompleteOperation with its completion, FailOperation with its final failure.
   */
  readonly steps: JobSteps = {
    begin: (job, now) => {
      // The resource refusing to begin (it is gone) fails the attempt, after the start is recorded.
      let refusal: Error | null = null;
      const refusing = this.refusalAsNothing((err) => (refusal = err));
      const part: AnyStreamCommand = { ...this.part(job, { type: 'BeginOperation', jobId: job.id, now }), decider: refusing };
      const attempt: BegunAttempt = {
        part,
        run: async (begun, token, stamp) => {
          if (refusal || !begun) throw new ProviderError(`${this.resource.label} ${job.resourceId} cannot be worked on: ${refusal?.message ?? 'not begun'}`, false);
          const result = await this.operate(job, begun.state as St, token);
          return { result: result.job, complete: result.skipped ? null : this.part(job, { type: 'CompleteOperation', jobId: job.id, now: stamp(), result: result.driver }) };
        },
      };
      return attempt;
    },
    fail: (job, error, now) => {
      // As onFailed: a resource that cannot record the failure leaves the job's failure standing.
      const lenient = this.refusalAsNothing(() => undefined);
      return { ...this.part(job, { type: 'FailOperation', jobId: job.id, error, now }), decider: lenient };
    },
  };

  /** The resource's decider, deciding nothing where it would refuse (`refused` is told each decision's refusal, or null). */
  private refusalAsNothing(refused: (err: Error | null) => void): JobBackedResource<Op, St, R>['decider'] {
    const { decider } = this.resource;
    return {
      ...decider,
      decide: (command, state) => {
        refused(null);
        try {
          return decider.decide(command, state);
        } catch (err) {
          refused(err as Error);
          return [];
        }
      },
    };
  }

  /** The driver call of the operation on the begun state; `skipped` when a later operation superseded this job. */
  private async operate(job: JobToRun, begunState: St, token: string): Promise<{ job: Record<string, unknown>; driver?: R; skipped?: true }> {
    const { label, calls } = this.resource;
    const state = begunState as St & Partial<LiveState<Op>>;
    if (state.status === 'none' || !state.id) throw new ProviderError(`${label} ${job.resourceId} does not exist`, false);
    if (state.currentJob?.jobId !== job.id) return { job: { skipped: 'superseded by a later operation' }, skipped: true };
    const { providerKind, externalId, spec } = this.resource.target(state as unknown as Exclude<St, { status: 'none' }>);
    const operation = job.operation as Op;
    const result = (await calls[operation](this.driverFor(providerKind, modeOfScope(job.projectId)), { token, externalId, spec })) ?? undefined;
    return { job: result ? this.resource.jobResult(result) : { operation }, driver: result };
  }

  private step(job: JobToRun, command: OperationCommand<R>, ctx: CommandContext): Promise<CommandResult<unknown>> {
    const p = this.part(job, command);
    return handleCommand(this.events, p.streamId, p.decider, p.command, ctx);
  }

  /** An attempt step by step (one append each), for callers without the executor's combined appends. */
  async execute(job: JobToRun, _attempt: number, token: string, ctx: CommandContext): Promise<Record<string, unknown>> {
    const begun = await this.step(job, { type: 'BeginOperation', jobId: job.id, now: isoNow(this.clock) }, ctx).catch((err) => {
      throw new ProviderError(`${this.resource.label} ${job.resourceId} cannot be worked on: ${(err as Error).message}`, false);
    });
    const result = await this.operate(job, begun.state as St, token);
    if (!result.skipped) await this.step(job, { type: 'CompleteOperation', jobId: job.id, now: isoNow(this.clock), result: result.driver }, ctx);
    return result.job;
  }

  async onFailed(job: JobToRun, error: string, ctx: CommandContext): Promise<void> {
    await this.step(job, { type: 'FailOperation', jobId: job.id, error, now: isoNow(this.clock) }, ctx).catch(() => undefined);
  }
}
