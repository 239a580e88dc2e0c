import type pino from 'pino';
import type { Clock } from './clock';

/**
 * A durable timer's loop (auto-stop, the month-end invoice run): a poll of a due-time index every
 * `intervalMs`, and at once when the clock jumps forward (a test's ManualClock) or the timer starts.
 * Polls never overlap: one asked for while another runs follows it. A failed poll is logged and the
 * next one retries, since the due times live in read models projected from events.
 */
export abstract class PollingTimer {
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private again = false;
  private stopped = false;
  private unsubscribe: (() => void) | null = null;
  /** Completed polls (tests wait on it instead of sleeping). */
  ticks = 0;

  protected constructor(
    protected readonly clock: Clock,
    protected readonly logger: pino.Logger,
    private readonly intervalMs: number,
    private readonly label: string,
  ) {}

  /** One look at the due-time index and whatever is due. */
  protected abstract poll(now: number): Promise<void>;

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref?.();
    this.unsubscribe = this.clock.onAdvance(() => void this.tick());
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
  }

  async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      await this.poll(this.clock.now());
    } catch (err) {
      this.logger.warn({ err: String(err) }, `${this.label} tick failed`);
    } finally {
      this.busy = false;
      this.ticks++;
    }
    // A tick asked for while this one ran (the clock moved) runs now rather than an interval later.
    if (this.again) {
      this.again = false;
      await this.tick();
    }
  }
}
