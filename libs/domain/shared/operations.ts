import { DomainError, type DomainEvent } from './domain-error';

/**
 * One job-backed lifecycle for every resource whose operations run as jobs (instances, servers,
 * and later volumes, clusters, IPs, models): a request moves the resource to a transient status and
 * starts a job; the job's attempt moves it on to its working status, calls the driver (3 attempts,
 * backoff), and ends it in its final status, or `error`; a manual retry puts it back in the
 * transient status. A resource declares its operations as a table and its events as a mapping; the
 * rules below, the process manager (sagas/job-operations) and the read-model fields serve them all.
 */
export interface OperationRule<S extends string> {
  /** Statuses the operation may be requested from; `live`: any but the resource's `gone` ones. */
  from: readonly S[] | 'live';
  /** At the request, until an attempt begins; where a manual retry puts the resource back. */
  transient: S;
  /** While the driver works (entered when an attempt begins), when it differs from `transient`. */
  working?: S;
  /** When the driver is done. */
  final: S;
}

export type OperationTable<Op extends string, S extends string> = { readonly [K in Op]: OperationRule<S> };

/** The job a resource waits for; outcomes of superseded jobs are ignored. */
export type CurrentJob<Op extends string> = { jobId: string; operation: Op } | null;

/** What a lifecycle event says, read back from the resource's own event (state and read models). */
export type LifecycleStep<Op extends string> = { step: 'requested' | 'working' | 'completed' | 'failed' | 'retried'; jobId: string; operation: Op; error?: string };

/** The common data of the events of a step. */
export type StepData = { id: string; jobId: string; at: string };

export interface JobLifecycle<Op extends string, S extends string, E extends DomainEvent, R> {
  operations: OperationTable<Op, S>;
  /** Statuses a `live` operation cannot start from. */
  gone: readonly S[];
  /** The status a failed operation leaves (default `error`; an AI model's is `failed`, DECISIONS 17). */
  failed?: S;
  /** The resource's own (stable, versioned) event for each step. */
  events: {
    working(op: Op, d: StepData): E;
    completed(op: Op, d: StepData, result: R | undefined): E;
    failed(op: Op, d: StepData & { error: string }): E;
    retried(op: Op, d: StepData & { status: S }): E;
  };
  /** The reverse mapping: the step an event records, or null for the resource's other events. */
  read(event: E): LifecycleStep<Op> | null;
}

/** The job process's commands on a resource (the same for every job-backed resource). */
export type OperationCommand<R> =
  | { type: 'BeginOperation'; jobId: string; now: string }
  | { type: 'CompleteOperation'; jobId: string; now: string; result?: R }
  | { type: 'FailOperation'; jobId: string; error: string; now: string }
  /** A failed job retried by hand (POST /v1/jobs/{id}/retry). */
  | { type: 'RetryOperation'; jobId: string; now: string };

const OPERATION_COMMANDS = new Set(['BeginOperation', 'CompleteOperation', 'FailOperation', 'RetryOperation']);
export const isOperationCommand = <R>(c: { type: string }): c is OperationCommand<R> => OPERATION_COMMANDS.has(c.type);

export function canStart<Op extends string, S extends string>(l: Pick<JobLifecycle<Op, S, never, unknown>, 'operations' | 'gone'>, op: Op, status: S): boolean {
  const from = l.operations[op].from;
  return from === 'live' ? !l.gone.includes(status) : from.includes(status);
}

/** Refuses an operation requested in the wrong status (409 INVALID_STATE, `<refusal> in status <s>`); else the status it moves to. */
export function startOperation<Op extends string, S extends string>(l: Pick<JobLifecycle<Op, S, never, unknown>, 'operations' | 'gone'>, op: Op, status: S, refusal: string): S {
  if (!canStart(l, op, status)) throw new DomainError('INVALID_STATE', `${refusal} in status ${status}`);
  return l.operations[op].transient;
}

/** The status and job a lifecycle event leaves the resource in. */
export function stepStatus<Op extends string, S extends string>(l: Pick<JobLifecycle<Op, S, never, unknown>, 'operations' | 'failed'>, step: LifecycleStep<Op>): S {
  const rule = l.operations[step.operation];
  switch (step.step) {
    case 'requested':
    case 'retried':
      return rule.transient;
    case 'working':
      return rule.working ?? rule.transient;
    case 'completed':
      return rule.final;
    case 'failed':
      return failedStatus(l);
  }
}

/** The status a failed operation leaves the resource in. */
export const failedStatus = <S extends string>(l: { failed?: S }): S => l.failed ?? ('error' as S);

/** Folds a lifecycle event into `{status, currentJob}`; null for the resource's other events. */
export function evolveLifecycle<Op extends string, S extends string, E extends DomainEvent>(
  l: JobLifecycle<Op, S, E, unknown>,
  state: { status: S; currentJob: CurrentJob<Op> },
  event: E,
): { status: S; currentJob: CurrentJob<Op> } | null {
  const step = l.read(event);
  if (!step) return null;
  const status = stepStatus(l, step);
  const currentJob = step.step === 'requested' ? { jobId: step.jobId, operation: step.operation } : step.step === 'completed' ? null : state.currentJob;
  return { status, currentJob };
}

/**
 * The job process's steps on the resource. Each is idempotent and acts only for the job the resource
 * waits for, so a re-run after a crash, or a superseded job, records nothing.
 */
export function decideOperation<Op extends string, S extends string, E extends DomainEvent, R>(
  l: JobLifecycle<Op, S, E, R>,
  state: { id: string; status: S; currentJob: CurrentJob<Op> },
  command: OperationCommand<R>,
): E[] {
  const job = state.currentJob;
  if (!job || job.jobId !== command.jobId) return [];
  const op = job.operation;
  const rule = l.operations[op];
  const d: StepData = { id: state.id, jobId: job.jobId, at: command.now };
  const failed = failedStatus(l);
  switch (command.type) {
    case 'BeginOperation': {
      const out: E[] = [];
      // Still in `error`: the job was re-opened before its failure was recorded here; reset first.
      const status = state.status === failed ? rule.transient : state.status;
      if (state.status === failed) out.push(l.events.retried(op, { ...d, status }));
      if (rule.working && status === rule.transient) out.push(l.events.working(op, d));
      return out;
    }
    case 'CompleteOperation':
      // From `error` too: a manually retried job that now succeeds brings the resource back.
      return [l.events.completed(op, d, command.result)];
    case 'FailOperation':
      return state.status === failed ? [] : [l.events.failed(op, { ...d, error: command.error })];
    case 'RetryOperation':
      // Only out of the `error` its failed job left (a repeated or concurrent retry changes nothing).
      return state.status === failed ? [l.events.retried(op, { ...d, status: rule.transient })] : [];
  }
}

/** The read-model fields every job-backed resource keeps, moved by a lifecycle event. */
export function lifecycleFields<Op extends string, S extends string, E extends DomainEvent>(
  l: JobLifecycle<Op, S, E, unknown>,
  event: E,
): { status: S; jobId?: string; errorMessage?: string | null } | null {
  const step = l.read(event);
  if (!step) return null;
  const status = stepStatus(l, step);
  switch (step.step) {
    case 'requested':
      return { status, jobId: step.jobId, errorMessage: null };
    case 'failed':
      return { status, errorMessage: step.error ?? null };
    case 'retried':
      return { status, errorMessage: null };
    default:
      return { status };
  }
}
