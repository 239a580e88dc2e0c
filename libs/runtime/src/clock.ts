/**
 * The runtime's time source (timers, retries, auto-stop, key expiry, rate-limit windows). The domain
 * never reads it: handlers pass `now` into commands. Tests use ManualClock and advance it instead of
 * waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `listener` after the clock jumps forward (a ManualClock's advance); returns an unsubscribe. */
  onAdvance(listener: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  onAdvance: () => () => undefined,
};

export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();

/**
 * Real time plus an offset that tests move forward with `advance(ms)`: timers, retries and expiries
 * still flow in real time, and the timers that listen to `onAdvance` look again at once when it is
 * moved, so an hour-long wait or a retry's backoff becomes one call.
 */
export class ManualClock implements Clock {
  private offset = 0;
  private readonly listeners = new Set<() => void>();

  now(): number {
    return Date.now() + this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
    for (const l of [...this.listeners]) l();
  }

  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
