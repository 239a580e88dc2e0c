/**
 * One retry policy: the waits after each failed attempt; an effect gets `delaysMs.length + 1`
 * attempts, then fails for good. Kinds pick a policy; the decider and the runner apply it the same way.
 */
export interface RetryPolicy {
  readonly delaysMs: readonly number[];
}

export const maxAttempts = (policy: RetryPolicy): number => policy.delaysMs.length + 1;

/** When attempt `attempt + 1` is due after attempt `attempt` (1-based, within the budget) failed at `at`; null: no attempt left. */
export function nextAttemptAt(policy: RetryPolicy, attempt: number, at: string): string | null {
  const delay = policy.delaysMs[attempt - 1];
  return delay === undefined ? null : new Date(Date.parse(at) + delay).toISOString();
}

/**
 * Webhook deliveries (the Standard Webhooks reference schedule): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h. Eight attempts over 27 h 35 min: retried for at least 24 hours (DECISIONS 10).
 */
export const WEBHOOK_RETRY_POLICY: RetryPolicy = { delaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] };

/**
 * Mail and ticket forwarding: retried within seconds first (a receiver's hiccup, a 451 greylisting,
 * a tracker restarting: what the subscription's 100 ms-to-5 s backoff used to bridge), then the
 * webhook schedule's long tail, so an outage of a day is still bridged (29 h 40 min in all).
 */
export const MESSAGE_RETRY_POLICY: RetryPolicy = { delaysMs: [1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] };
