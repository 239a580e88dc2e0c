import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { JobEnqueued } from '../../libs/domain/jobs/events';
import type { Decider } from '../../libs/domain/shared/domain-error';
import type { CurrentJob, OperationCommand } from '../../libs/domain/shared/operations';
import { modeOfScope, type Mode } from '../../libs/domain/shared/scope';
import { ProviderError, type InstanceSpec, type ProviderDriver } from '../../libs/providers/src/driver.port';
import { isoNow, systemClock, type Clock } from '../../libs/runtime/src/clock';
import type { JobDoc } from '../../projections/jobs/jobs.projection';
import type { JobOperationHandler } from '../job-executor/job-executor';

/** The driver of a provider kind in a mode (test mode: always the simulator, DECISIONS 21). */
export type DriverFor = (providerKind: string, mode: Mode) => ProviderDriver;

/** The machine as its driver knows it. */
export type DriverTarget = { token: string; externalId: string; spec: InstanceSpec };
/** An operation's provider call: resolves with what its completion records (provisioning details), if anything. */
export type DriverCall<R> = (driver: ProviderDriver, target: DriverTarget) => Promise<R | void>;

type LiveState<Op extends string> = { status: string; id: string; currentJob: CurrentJob<Op> };

/**
 * The process side of a job-backed resource (the domain side is its JobLifecycle): its stream and
 * decider, the job each request event starts, and the driver call of each operation.
 */
export interface JobBackedResource<Op extends string = string, St extends { status: string } = { status: string }, R = unknown> {
  /** The jobs' `resourceType`. */
  resourceType: string;
  /** `Instance`, in messages. */
  label: string;
  /** The read model that shows the resource (read-your-writes after a retry resets it). */
  readModel: string;
  stream: (id: string) => string;
  // The resource's own event union; the process only passes its events through.
  decider: Decider<OperationCommand<R>, any, St>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The job a recorded event requests, or null. */
  jobOf(event: RecordedEvent): Omit<JobEnqueued['data'], 'maxAttempts'> | null;
  /** Which driver, and the machine as it knows it. */
  target(state: Exclude<St, { status: 'none' }>): { providerKind: string; externalId: string; spec: InstanceSpec };
  calls: { readonly [K in Op]: DriverCall<R> };
  /** What the job document records of the result (it stays small). */
  jobResult(result: R): Record<string, unknown>;
}

// Resources differ in their types; the registry and the executor see them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobBackedResource = JobBackedResource<any, any, any>;

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

  private step(job: JobDoc, command: OperationCommand<R>, ctx: CommandContext) {
    return handleCommand(this.events, this.resource.stream(job.resourceId), this.resource.decider, command, ctx);
  }

  async execute(job: JobDoc, _attempt: number, token: string, ctx: CommandContext): Promise<Record<string, unknown>> {
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

  async onFailed(job: JobDoc, error: string, ctx: CommandContext): Promise<void> {
    await this.step(job, { type: 'FailOperation', jobId: job.id, error, now: isoNow(this.clock) }, ctx).catch(() => undefined);
  }
}

/**
 * DECISIONS 7: a manual retry puts the resource back in the status its operation starts from (only
 * out of the `error` the failed job left; otherwise nothing is recorded). Resolves with the position.
 */
export async function resetForRetry(events: EventStore, resource: AnyJobBackedResource, job: Pick<JobDoc, 'id' | 'resourceId'>, now: string, ctx: CommandContext): Promise<number | null> {
  const r = await handleCommand(events, resource.stream(job.resourceId), resource.decider, { type: 'RetryOperation', jobId: job.id, now }, ctx);
  return r.position;
}
