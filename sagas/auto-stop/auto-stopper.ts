import type pino from 'pino';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { InstanceDoc } from '../../projections/instances/instances.projection';
import { systemClock, type Clock } from '../../libs/runtime/src/clock';

/**
 * StopInstanceOnInactivity: the durable timer is the `autoStopAt` of the instances read model
 * (projected from the events that make an instance active), so restarts re-arm it by themselves.
 * Firing requests an ordinary stop, which emits the same events as a client's stop.
 */
export class AutoStopper {
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private again = false;
  private stopped = false;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly instances: () => Promise<ReadCollection<InstanceDoc>>,
    private readonly stopInstance: (doc: InstanceDoc) => Promise<void> | undefined,
    private readonly logger: pino.Logger,
    private readonly intervalMs = 1000,
    private readonly clock: Clock = systemClock,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref?.();
    // A clock moved forward by a test (or an operator's clock) is checked at once.
    this.unsubscribe = this.clock.onAdvance(() => void this.tick());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      const due = await (await this.instances()).find({ filter: { autoStopArmed: true, autoStopAt: { $lte: new Date(this.clock.now()).toISOString() } }, sort: [{ field: 'autoStopAt', direction: 1 }], limit: 100, withTotal: false });
      for (const doc of due.items) {
        await Promise.resolve(this.stopInstance(doc)).catch((err) => this.logger.warn({ err: String(err), instanceId: doc.id }, 'auto-stop failed; retrying on the next tick'));
      }
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'auto-stop tick failed');
    } finally {
      this.busy = false;
    }
    // A tick asked for while this one ran (the clock moved) runs now rather than an interval later.
    if (this.again) {
      this.again = false;
      await this.tick();
    }
  }
}
