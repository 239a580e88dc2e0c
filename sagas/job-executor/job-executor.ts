import { modeOfScope } from '../../libs/domain/shared/scope';
import type pino from 'pino';
import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, handleCommands, type AnyStreamCommand, type CommandContext, type CommandResult } from '../../libs/eventstore/src/handle-command';
import { jobDecider } from '../../libs/domain/jobs/job.decider';
import { jobStream } from '../../libs/domain/jobs/events';
import { ProviderError } from '../../libs/providers/src/driver.port';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { JobDoc } from '../../projections/jobs/jobs.projection';
import { systemClock, type Clock } from '../../libs/runtime/src/clock';
import type { JobOperationHandler, JobSteps } from '../../libs/runtime/src/job-ports';

export interface JobExecutorOptions {
  concurrency?: number;
  pollIntervalMs?: number;
  /**
   * Resolves once the jobs read model holds every job event written before this start (the
   * projection has caught up with the log's head as of then). Crash recovery waits for it: an attempt
   * started just before a crash may not be projected yet, and would otherwise be found `pending`,
   * refused by its own stream, and never run again.
   */
  ready?: () => Promise<void>;
  /**
   * Time of the retry timers and of the attempts' events. When it jumps forward (a test's
   * ManualClock), the executor looks at once for what that made due instead of waiting for its timer.
   */
  clock?: Clock;
}

/**
 * The job process manager. Its timers are the `dueAt` index of the jobs read model (projected from
 * JobEnqueued / JobAttemptFailed.retryAt / JobRetried), so a restart re-arms every retry by
 * itself. Each attempt is started with an optimistic append (only one executor wins it); an
 * attempt found `processing` at start-up was cut off by a crash and is re-run with its token.
 *
 * Between two queries of the read model (at most `pollIntervalMs` apart) the executor works from
 * the in-process change feed of the jobs projector (`observe`): the pending jobs it wrote. A stale
 * entry costs one refused StartAttempt; one the feed missed (another process's projector) waits
 * for the next query.
 */
export class JobExecutor {
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private recovered = false;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** Pending jobs known from the change feed or the last query, by id. */
  private readonly known = new Map<string, JobDoc>();
  private fed = false;
  private lastQueryAt = -Infinity;
  /** The last query returned as many jobs as it asked for: there may be more than `known` holds. */
  private truncated = false;
  /** The clock jumped while a tick ran: the next tick follows at once. */
  private advanced = false;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly jobs: () => Promise<ReadCollection<JobDoc>>,
    private readonly handlers: Record<string, JobOperationHandler>,
    private readonly logger: pino.Logger,
    private readonly options: JobExecutorOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 32;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.clock = options.clock ?? systemClock;
  }

  private readonly clock: Clock;

  /** Adds the handler of a resource type (application assembly, before start). */
  register(resourceType: string, handler: JobOperationHandler): void {
    this.handlers[resourceType] = handler;
  }

  start(): void {
    if (this.loop) return;
    this.unsubscribe = this.clock.onAdvance(() => this.clockAdvanced());
    this.loop = this.run();
  }

  /**
   * The clock jumped forward (only a ManualClock does): a retry timer armed for the old time would
   * fire late, so it is dropped and the loop looks now (at once, or right after a tick under way).
   */
  private clockAdvanced(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.retryAt = Infinity;
    this.advanced = true;
    this.poke();
  }

  /**
   * The jobs projector's change feed: the documents it just wrote. Pending ones become candidates
   * without a query; any other status (or a deletion) removes the job from them.
   */
  observe(changes: Array<{ id: string; doc: JobDoc | null }>): void {
    this.fed = true;
    for (const { id, doc } of changes) {
      if (doc && doc.status === 'pending') this.remember(doc);
      else this.known.delete(id);
    }
  }

  /** Keeps the newer of two views of a pending job (the feed and a query can cross). */
  private remember(job: JobDoc): void {
    const held = this.known.get(job.id);
    if (!held || held._position <= job._position) this.known.set(job.id, job);
  }

  /** Hint that new jobs may be due (the jobs projection just moved). */
  poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private onStop: (() => void) | null = null;

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.onStop?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.poke();
    await this.loop;
    while (this.inFlight.size > 0) await new Promise((r) => setTimeout(r, 20));
  }

  private async run(): Promise<void> {
    if (this.options.ready) {
      try {
        await Promise.race([this.options.ready(), new Promise<void>((resolve) => (this.onStop = resolve))]);
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'job executor: the jobs projection did not catch up before recovery');
      }
    }
    while (!this.stopped) {
      this.advanced = false;
      try {
        await this.tick();
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'job executor tick failed');
      }
      if (this.advanced) continue; // the clock moved during the tick, whose `now` may be the old one
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.pollIntervalMs);
      });
      if (this.timer) clearTimeout(this.timer);
    }
  }

  private async tick(): Promise<void> {
    const jobs = await this.jobs();
    if (!this.recovered) {
      // Attempts cut off by a crash: still `processing`, but nobody in this process runs them.
      const stale = await jobs.find({ filter: { status: 'processing' }, sort: [{ field: 'updatedAt', direction: 1 }], limit: 10_000, withTotal: false });
      for (const job of stale.items) this.launch(job, job.attempts, false);
      this.recovered = true;
    }
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    // One query for both what is due now and when the next retry falls due (a timer wakes us then);
    // otherwise the executor sleeps until the jobs projection moves or the idle poll comes round.
    let now = this.clock.now();
    const candidates = () => [...this.known.values()].filter((j) => !this.inFlight.has(j.id));
    if (!this.fed || now - this.lastQueryAt >= this.pollIntervalMs || (this.truncated && candidates().length < free)) {
      const limit = free + this.inFlight.size;
      this.lastQueryAt = now;
      const pending = await jobs.find({ filter: { status: 'pending' }, sort: [{ field: 'dueAt', direction: 1 }], limit, withTotal: false });
      this.truncated = pending.items.length >= limit;
      for (const job of pending.items) this.remember(job);
      now = this.clock.now();
    }
    const due = candidates().sort((a, b) => dueTime(a, now) - dueTime(b, now));
    for (const job of due) {
      const dueAt = job.dueAt ? Date.parse(job.dueAt) : now;
      if (dueAt > now) {
        this.wakeAt(dueAt);
        break;
      }
      if (this.inFlight.size >= this.concurrency) break;
      this.launch(job, job.attempts + 1, true);
    }
  }

  private retryTimer: NodeJS.Timeout | null = null;
  private retryAt = Infinity;

  private wakeAt(at: number): void {
    if (at >= this.retryAt) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retryAt = Infinity;
      this.poke();
    }, Math.max(0, at - this.clock.now()) + 5);
    this.retryTimer.unref?.();
  }

  /** Attempts that started here and then could not record their outcome (the store was unreachable): job id → failures in a row. */
  private readonly crashed = new Map<string, number>();

  private launch(job: JobDoc, attempt: number, fresh: boolean): void {
    if (this.inFlight.has(job.id) || this.stopped) return;
    this.inFlight.add(job.id);
    this.known.delete(job.id);
    const progress = { started: !fresh };
    void this.attempt(job, attempt, fresh, progress)
      .then(
        () => this.crashed.delete(job.id),
        (err) => {
          this.logger.error({ err: String(err), jobId: job.id }, 'job attempt crashed; it runs again');
          // A refusal of the job's own stream is final; a store that could not be reached is not.
          if (progress.started && !(err instanceof DomainError)) this.runAgain(job, attempt);
        },
      )
      .finally(() => {
        this.inFlight.delete(job.id);
        this.poke();
      });
  }

  /**
   * An attempt that started but could not record its outcome (an engine outage while the process
   * lives on) stays `processing`, which only start-up recovery looked for: it is run again, as that
   * recovery does (same attempt, same token, so the driver call is not repeated), with backoff.
   */
  private runAgain(job: JobDoc, attempt: number): void {
    const failures = (this.crashed.get(job.id) ?? 0) + 1;
    this.crashed.set(job.id, failures);
    const timer = setTimeout(() => this.launch(job, attempt, false), Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
    timer.unref?.();
  }

  private async attempt(job: JobDoc, attempt: number, fresh: boolean, progress: { started: boolean }): Promise<void> {
    const ctx: CommandContext = { metadata: { projectId: job.projectId ?? undefined, actor: 'system:job-executor', correlationId: job.id, causationId: job.id, mode: job.mode ?? modeOfScope(job.projectId) } };
    const now = () => new Date(this.clock.now()).toISOString();
    const handler = this.handlers[job.resourceType];
    if (handler?.steps) return this.attemptInSteps(job, attempt, fresh, progress, handler.steps, ctx, now);
    if (fresh) {
      const started = await handleCommand(this.events, jobStream(job.id), jobDecider, { type: 'StartAttempt', attempt, now: now() }, ctx);
      if (started.events.length === 0) return; // someone else started it, or it is not due yet
      progress.started = true;
    }
    // Unique per attempt of each budget (a manual retry starts a new budget); ends in the attempt number.
    const token = attemptToken(job, attempt);
    let result: Record<string, unknown>;
    try {
      if (!handler) throw new ProviderError(`No handler for ${job.resourceType} jobs`);
      result = await handler.execute(job, attempt, token, ctx);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const failed = await handleCommand(this.events, jobStream(job.id), jobDecider, { type: 'RecordAttemptFailure', attempt, error: message, now: now() }, ctx);
      if (failed.state.status === 'failed' && handler) await handler.onFailed(job, message, ctx);
      return;
    }
    await handleCommand(this.events, jobStream(job.id), jobDecider, { type: 'CompleteAttempt', attempt, now: now(), result }, ctx);
  }

  /**
   * An attempt of a handler with steps, in two appends: the job's start with the resource's begin
   * (the start is recorded before the driver is called, so a crash re-runs it with the same token),
   * then the outcome: the job's completion with the resource's, or the job's failure (with the
   * resource's when it is final).
   */
  private async attemptInSteps(job: JobDoc, attempt: number, fresh: boolean, progress: { started: boolean }, steps: JobSteps, ctx: CommandContext, now: () => string): Promise<void> {
    const begun = steps.begin(job, now());
    const job$ = (command: Parameters<typeof jobDecider.decide>[0]): AnyStreamCommand => ({ streamId: jobStream(job.id), decider: jobDecider, command });
    let onResource: CommandResult<unknown> | undefined;
    if (fresh) {
      // The resource begins only if the job's start was decided (else someone else started it, or it is not due yet).
      const [started, resource] = await handleCommands(this.events, [job$({ type: 'StartAttempt', attempt, now: now() }), (earlier) => (earlier.length > 0 ? begun.part : null)], ctx);
      if (started.events.length === 0) return;
      progress.started = true;
      onResource = resource;
    } else {
      [onResource] = await handleCommands(this.events, [begun.part], ctx);
    }
    let outcome: Awaited<ReturnType<typeof begun.run>>;
    try {
      outcome = await begun.run(onResource, attemptToken(job, attempt), now);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const fail = steps.fail(job, message, now());
      await handleCommands(this.events, [job$({ type: 'RecordAttemptFailure', attempt, error: message, now: now() }), (earlier) => (earlier.some((e) => e.type === 'jobs.JobFailed.v1') ? fail : null)], ctx);
      return;
    }
    // The resource's completion first (the job's completion answers for it), then the job's.
    await handleCommands(this.events, [...(outcome.complete ? [outcome.complete] : []), job$({ type: 'CompleteAttempt', attempt, now: now(), result: outcome.result })], ctx);
  }
}

/** Unique per attempt of each budget (a manual retry starts a new budget); ends in the attempt number. */
const attemptToken = (job: JobDoc, attempt: number) => `${job.id}:r${job.retries ?? 0}:${attempt}`;

function dueTime(job: JobDoc, now: number): number {
  return job.dueAt ? Date.parse(job.dueAt) : now;
}
