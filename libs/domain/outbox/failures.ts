/**
 * The one classification of a receiver's refusals: permanent (no retry changes it: the effect fails
 * for good) or retryable. Senders ask here; no sender repeats a rule.
 */

/** An SMTP reply in the 5xx range refuses the message for good (RFC 5321 4.2.1); a 4xx, a refused connection or a timeout is retried. */
export function smtpRefusalIsPermanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** The SMTP reply code of a refusal, when the server gave one. */
export const smtpCodeOf = (err: unknown): number | null => {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' ? code : null;
};

/** A mail that failed, as an effect's failed outcome: `SMTP <code>` (or the error's message when no server answered). */
export function smtpFailure(err: unknown): { ok: false; retryable: boolean; reason: string } {
  const code = smtpCodeOf(err);
  const reason = code !== null ? `SMTP ${code}` : (err instanceof Error ? err.message : String(err)).slice(0, 500);
  return { ok: false, retryable: !smtpRefusalIsPermanent(err), reason };
}

/**
 * An API (the issue tracker) refused the request itself: 400, 404, 410, 422. Anything else (5xx,
 * 408, 429, 401/403 until an operator fixes the token) is worth retrying.
 */
export function httpRefusalIsPermanent(status: number | null): boolean {
  return status === 400 || status === 404 || status === 410 || status === 422;
}

