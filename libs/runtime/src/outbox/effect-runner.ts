import type pino from 'pino';
import type { Clock } from '../clock';

export interface EffectRunnerOptions {
  clock: Clock;
  logger: pino.Logger;
  /** What the log lines name (`webhook deliveries`, `outbox`). */
  label: string;
  /** Attempts in flight at once. */
  concurrency: number;
  pollMs?: number;
  /** The due-time index: ids of the effects due at `now` (a read model, so a restart re-arms every pending effect). */
  due: (nowIso: string) => Promise<string[]>;
  /** One attempt of an effect (it reads its own stream: the index may lag). A rejection is logged; the next poll finds it due again. */
  run: (id: string) => Promise<void>;
  /** Effects queued but not started when the runner stopped. */
  onDropped?: (ids: string[]) => void;
}

/**
 * The durable timer every effect runs on: polls a due-time index every second and on a clock
 * advance, takes effects handed over directly (`enqueue`: new ones, change feeds), and runs each
 * independently, at most `concurrency` at once and each id once at a time. One effect's failure or
 * slowness never holds up another: there is no batch to retry.
 */
export class EffectRunner {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  /** A poll under way (`again`: another was asked for meanwhile). */
  private polling: { again: boolean } | null = null;
  /** Ids queued or running; the queue is in hand-over order. */
  private readonly active = new Set<string>();
  private readonly queue: string[] = [];
  private running = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly o: EffectRunnerOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.o.pollMs ?? 1000);
    this.timer.unref?.();
    this.unsubscribe = this.o.clock.onAdvance(() => void this.poll());
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    const dropped = this.queue.splice(0);
    for (const id of dropped) this.active.delete(id);
    this.o.onDropped?.(dropped);
    while (this.running > 0 || this.polling) await new Promise<void>((r) => this.idle.push(r));
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Whether the effect is queued or running in this process. */
  has(id: string): boolean {
    return this.active.has(id);
  }

  /** Runs the effect soon (once, if it is already queued or running). */
  enqueue(id: string): void {
    if (this.stopped || this.active.has(id)) return;
    this.active.add(id);
    this.queue.push(id);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.o.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.running++;
      void this.o
        .run(id)
        .catch((err) => this.o.logger.warn({ err: String(err), id }, `${this.o.label}: attempt failed to run; retrying on the next poll`))
        .finally(() => {
          this.running--;
          this.active.delete(id);
          this.pump();
          this.settle();
        });
    }
  }

  private settle(): void {
    if (this.running > 0 || this.polling) return;
    for (const w of this.idle.splice(0)) w();
  }

  async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.polling.again = true;
      return;
    }
    const current = (this.polling = { again: false });
    try {
      for (const id of await this.o.due(new Date(this.o.clock.now()).toISOString())) this.enqueue(id);
    } catch (err) {
      this.o.logger.warn({ err: String(err) }, `${this.o.label}: poll failed`);
    } finally {
      this.polling = null;
      this.settle();
    }
    if (current.again) await this.poll();
  }
}
