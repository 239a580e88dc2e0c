import type pino from 'pino';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import type { InstanceDoc } from '../../projections/instances/instances.projection';
import { systemClock, type Clock } from '../../libs/runtime/src/clock';
import { PollingTimer } from '../../libs/runtime/src/polling-timer';

/**
 * StopInstanceOnInactivity: the durable timer is the `autoStopAt` of the instances read model
 * (projected from the events that make an instance active), so restarts re-arm it by themselves.
 * Firing requests an ordinary stop, which emits the same events as a client's stop.
 */
export class AutoStopper extends PollingTimer {
  constructor(
    private readonly instances: () => Promise<ReadCollection<InstanceDoc>>,
    private readonly stopInstance: (doc: InstanceDoc) => Promise<void> | undefined,
    logger: pino.Logger,
    intervalMs = 1000,
    clock: Clock = systemClock,
  ) {
    super(clock, logger, intervalMs, 'auto-stop');
  }

  protected async poll(now: number): Promise<void> {
    const due = await (await this.instances()).find({ filter: { autoStopArmed: true, autoStopAt: { $lte: new Date(now).toISOString() } }, sort: [{ field: 'autoStopAt', direction: 1 }], limit: 100, withTotal: false });
    for (const doc of due.items) {
      await Promise.resolve(this.stopInstance(doc)).catch((err) => this.logger.warn({ err: String(err), instanceId: doc.id }, 'auto-stop failed; retrying on the next tick'));
    }
  }
}
