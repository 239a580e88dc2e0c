import type { JobEnqueued } from '../../domain/jobs/events';
import type { Decider } from '../../domain/shared/domain-error';
import type { AnyJobResource } from '../../domain/shared/job-resource';
import type { OperationCommand } from '../../domain/shared/operations';
import type { Mode } from '../../domain/shared/scope';
import type { AnyStreamCommand, CommandContext, CommandResult } from '../../eventstore/src/handle-command';
import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import type { InstanceSpec, ProviderDriver } from '../../providers/src/driver.port';

/**
 * The job contracts between the runtime, the context modules and the job process (sagas/job-*): they
 * live here, below the sagas that implement them, so the runtime names them without importing sagas.
 */

/** A job as its handler sees it (the jobs read model's document, projections/jobs, holds these and more). */
export interface JobToRun {
  id: string;
  projectId: string | null;
  resourceType: string;
  resourceId: string;
  operation: string;
  payload: Record<string, unknown>;
}

/** What a job does to its resource; one per resource type. */
export interface JobOperationHandler {
  /** Runs one attempt. The token is stable per attempt, so a re-run after a crash is idempotent. */
  execute(job: JobToRun, attempt: number, token: string, ctx: CommandContext): Promise<Record<string, unknown>>;
  /** Called once when the job has failed for good. */
  onFailed(job: JobToRun, error: string, ctx: CommandContext): Promise<void>;
  /**
   * A handler that records its resource's side of an attempt in the job's own appends (the executor
   * then makes one append when the attempt starts and one for its outcome, instead of one per step).
   * Without it, `execute` and `onFailed` record their own writes.
   */
  readonly steps?: JobSteps;
}

/** An attempt of a job-backed resource as parts of the job's appends (see JobOperationHandler.steps). */
export interface JobSteps {
  /** What the resource records as the attempt starts; `run` then calls the driver with the state that left. */
  begin(job: JobToRun, now: string): BegunAttempt;
  /** What the resource records when the job has failed for good (appended with the job's failure). */
  fail(job: JobToRun, error: string, now: string): AnyStreamCommand;
}

export interface BegunAttempt {
  /** Appended with the job's start (or alone, for an attempt a crash cut off). */
  part: AnyStreamCommand;
  /**
   * Runs the attempt on what the begin part left (`begun`: its result), and answers the job's result
   * with the resource's completion, appended with the job's. Throws what fails the attempt.
   */
  run(begun: CommandResult<unknown> | undefined, token: string, now: () => string): Promise<{ result: Record<string, unknown>; complete: AnyStreamCommand | null }>;
}

/** The driver of a provider kind in a mode (test mode: always the simulator, DECISIONS 21). */
export type DriverFor = (providerKind: string, mode: Mode) => ProviderDriver;

/** The machine as its driver knows it. */
export type DriverTarget = { token: string; externalId: string; spec: InstanceSpec };
/** An operation's provider call: resolves with what its completion records (provisioning details), if anything. */
export type DriverCall<R> = (driver: ProviderDriver, target: DriverTarget) => Promise<R | void>;

/**
 * The process side of a job-backed resource (the domain side is its JobLifecycle): its stream and
 * decider, the job each request event starts, and the driver call of each operation.
 */
export interface JobBackedResource<Op extends string = string, St extends { status: string } = { status: string }, R = unknown> {
  /** The jobs' `resourceType`. */
  resourceType: string;
  /** The declaration a declared job-backed resource is built from (its events' shapes, for the AsyncAPI document). */
  declared?: AnyJobResource;
  /** `Instance`, in messages. */
  label: string;
  /** The read model that shows the resource (read-your-writes after a retry resets it). */
  readModel: string;
  stream: (id: string) => string;
  // The resource's own event union; the process only passes its events through.
  decider: Decider<OperationCommand<R>, any, St>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The job an event requests, or null (from the event as recorded, or as about to be appended with its job). */
  jobOf(event: Pick<RecordedEvent, 'type' | 'data' | 'metadata'>): Omit<JobEnqueued['data'], 'maxAttempts'> | null;
  /** Which driver, and the machine as it knows it. */
  target(state: Exclude<St, { status: 'none' }>): { providerKind: string; externalId: string; spec: InstanceSpec };
  calls: { readonly [K in Op]: DriverCall<R> };
  /** What the job document records of the result (it stays small). */
  jobResult(result: R): Record<string, unknown>;
}

// Resources differ in their types; the registry and the executor see them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobBackedResource = JobBackedResource<any, any, any>;
