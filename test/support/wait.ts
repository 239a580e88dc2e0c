export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `fn` until `ok` holds, and fails the test when it never does within `timeoutMs` (naming the
 * last value), so a wait can never pass silently.
 */
export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(v, (_k, x) => (x instanceof Buffer ? '<buffer>' : x)).slice(0, 500)}`);
    await sleep(everyMs);
  }
}
