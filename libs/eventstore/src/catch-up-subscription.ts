import type { RecordedEvent, SubscribeOptions, Subscription } from './event-store.port';

export interface LogReader {
  readAll(options: { fromPosition: number; maxCount: number }): Promise<RecordedEvent[]>;
}

/**
 * Catch-up subscription over any gap-free global log: reads batches from the position, hands each to
 * the handler, and when caught up sleeps until woken (an append hint) or the poll interval passes.
 * A failing batch is retried from the same position with capped exponential backoff.
 */
export class CatchUpSubscription implements Subscription {
  private current: number;
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private readonly done: Promise<void>;

  constructor(
    private readonly reader: LogReader,
    private readonly options: SubscribeOptions,
    private readonly pollIntervalMs: number,
  ) {
    this.current = options.fromPosition;
    this.done = this.run();
  }

  get position(): number {
    return this.current;
  }

  /** Called by the store when new events may be available. */
  notify(): void {
    const wake = this.wakeUp;
    this.wakeUp = null;
    wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.notify();
    await this.done;
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? 500;
    let failures = 0;
    while (!this.stopped) {
      let events: RecordedEvent[];
      try {
        // Arm the wake-up before reading so an append that lands during the read is not missed.
        const woken = new Promise<void>((resolve) => (this.wakeUp = resolve));
        const batchStarted = Date.now();
        events = await this.reader.readAll({ fromPosition: this.current, maxCount: batchSize });
        if (events.length === 0) {
          failures = 0;
          await Promise.race([woken, sleep(this.pollIntervalMs)]);
          continue;
        }
        if (this.stopped) break;
        await this.options.onEvents(events);
        this.current = events[events.length - 1].position;
        failures = 0;
        // A short batch means the read reached the head; anything appended since has resolved
        // `woken` (armed before the read), so an immediate re-read would only come back empty.
        if (events.length < batchSize) {
          await Promise.race([woken, sleep(this.pollIntervalMs)]);
          const early = (this.options.minBatchIntervalMs ?? 0) - (Date.now() - batchStarted);
          if (early > 0 && !this.stopped) await sleep(early);
        }
      } catch (err) {
        failures++;
        this.options.onError?.(err);
        await sleep(Math.min(5000, 50 * 2 ** Math.min(failures, 7)));
      }
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
