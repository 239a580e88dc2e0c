import { retryDelayMs } from '../../libs/domain/jobs/job.decider';
import type { ManualClock } from '../../libs/runtime/src/clock';
import { eventually } from './wait';

/** What a job answer shows of its retry (GET /v1/jobs/{id}: `data.attributes`, with `data.id`). */
export interface JobRetryView {
  id?: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  /** A pending job's last change: the failure that scheduled the retry. */
  updatedAt: string;
}

type JobAnswer = { body?: { data?: { id?: string; attributes?: Partial<JobRetryView> } } };

/** The job of a GET /v1/jobs/{id} answer. */
export const jobOfAnswer = (r: unknown): JobRetryView | undefined => {
  const data = (r as JobAnswer)?.body?.data;
  return data?.attributes ? ({ id: data.id, ...data.attributes } as JobRetryView) : undefined;
};

/** The retries each clock was already moved past (one poll after another shows the same one). */
const advancedFor = new WeakMap<ManualClock, Set<string>>();

/**
 * When `job` waits for a retry (pending after a failed attempt), moves `clock` forward by that
 * retry's backoff, once per retry, so the job executor starts it now rather than after 1 s, 2 s...
 * of real time. The backoff shown must be DECISIONS 7's for the attempt that failed.
 */
export function advancePastRetry(clock: ManualClock, job: JobRetryView | null | undefined): void {
  if (!job || job.status !== 'pending' || job.attempts < 1 || !job.nextAttemptAt) return;
  const key = `${job.id ?? ''}@${job.nextAttemptAt}`;
  const done = advancedFor.get(clock) ?? new Set<string>();
  advancedFor.set(clock, done);
  if (done.has(key)) return;
  done.add(key);
  const backoff = Date.parse(job.nextAttemptAt) - Date.parse(job.updatedAt);
  expect(backoff).toBe(retryDelayMs(job.attempts));
  clock.advance(backoff);
}

/**
 * `eventually` for a job-backed condition: polls `fn` until `ok` holds, and whenever the job it
 * shows (`jobOf`; by default the job of a GET /v1/jobs/{id} answer) waits for a retry, advances the
 * server's clock past the backoff instead of waiting it out. Fails the test like `eventually`.
 */
export function eventuallyRetrying<T>(clock: ManualClock, fn: () => Promise<T>, ok: (v: T) => boolean, opts: { jobOf?: (v: T) => JobRetryView | null | undefined; timeoutMs?: number } = {}): Promise<T> {
  const jobOf = opts.jobOf ?? jobOfAnswer;
  return eventually(
    async () => {
      const v = await fn();
      if (!ok(v)) advancePastRetry(clock, jobOf(v));
      return v;
    },
    ok,
    opts.timeoutMs ?? 20000,
  );
}
