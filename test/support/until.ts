import { eventually } from './wait';

/** `eventually`, failing the test when the condition never held (so a wait cannot pass silently). */
export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs?: number, everyMs?: number): Promise<T> {
  const v = await eventually(fn, ok, timeoutMs, everyMs);
  if (!ok(v)) throw new Error(`condition not met within ${timeoutMs ?? 20000} ms; last value: ${JSON.stringify(v).slice(0, 500)}`);
  return v;
}
