/**
 * The spec's client guidance (section 7): on 429 wait for `Retry-After`; on a 5xx retry with backoff
 * 1 s, 2 s, 4 s, 8 s, 16 s, up to 5 retries. A write is retried only when it carries an
 * `Idempotency-Key` (every POST does by default), so a retry never does it twice.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 5). */
  maxRetries?: number;
  /** The wait before retry `n` (0-based) when the answer names none (default 1 s · 2^n). */
  backoffMs?: (retry: number) => number;
}

export const specBackoffMs = (retry: number): number => 1000 * 2 ** retry;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** The wait a 429 or 503 names in `Retry-After` (seconds, or an HTTP date), in ms. */
export function retryAfterMs(res: Response, now = Date.now()): number | undefined {
  const v = res.headers.get('retry-after');
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryingFetchOptions extends RetryOptions {
  /** Sets `Idempotency-Key` on a POST that has none (default: a random UUID; false: never). */
  idempotencyKey?: (() => string) | false;
}

/** A fetch that sets idempotency keys on POSTs and retries as the spec advises. */
export function retryingFetch(base: typeof fetch, o: RetryingFetchOptions = {}): typeof fetch {
  const maxRetries = o.maxRetries ?? 5;
  const backoff = o.backoffMs ?? specBackoffMs;
  const newKey = o.idempotencyKey === undefined ? () => globalThis.crypto.randomUUID() : o.idempotencyKey;
  return async (input, init) => {
    const request = new Request(input, init);
    if (newKey && request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('Idempotency-Key', newKey());
    const repeatable = SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let retry = 0; ; retry++) {
      let res: Response;
      try {
        res = await base(request.clone());
      } catch (err) {
        // A connection that failed may or may not have reached the server: only a repeatable request is sent again.
        if (!repeatable || retry >= maxRetries || request.signal.aborted) throw err;
        await sleep(backoff(retry), request.signal);
        continue;
      }
      const retriable = res.status === 429 || (res.status >= 500 && repeatable);
      if (!retriable || retry >= maxRetries) return res;
      const wait = (res.status === 429 || res.status === 503 ? retryAfterMs(res) : undefined) ?? backoff(retry);
      await res.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
    }
  };
}
