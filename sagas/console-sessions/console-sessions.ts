import type pino from 'pino';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy } from '../../libs/eventstore/src/handle-command';
import type { CloseReason } from '../../libs/domain/consoles/console-session';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import { systemClock, type Clock } from '../../libs/runtime/src/clock';
import { PollingTimer } from '../../libs/runtime/src/polling-timer';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';
import type { ConsoleSessionDoc } from '../../projections/console-sessions/console-sessions.projection';
import { closeConsoleSession } from '../../usecases/consoles/close-console-session';

type Sessions = () => Promise<ReadCollection<ConsoleSessionDoc>>;

/**
 * Why a compute event ends its resource's consoles, if it does: a stop or termination requested or
 * done (a console into a machine going down is closed at once, not when the job finishes), or the
 * provider reporting it stopped or gone.
 */
export function closingReason(e: Pick<RecordedEvent, 'type' | 'data'>): CloseReason | null {
  const d = e.data as { to?: string; action?: string };
  switch (e.type) {
    case 'compute.InstanceActionRequested.v1':
    case 'compute.InstanceStatusSynced.v1':
    case 'compute.ServerPowerActionRequested.v1':
      return d.to === 'terminating' || d.to === 'terminated' ? 'resource-terminated' : d.to === 'stopping' || d.to === 'stopped' ? 'resource-stopped' : null;
    case 'compute.InstanceStopped.v1':
    case 'compute.ServerPoweredOff.v1':
      return 'resource-stopped';
    case 'compute.InstanceTerminated.v1':
    case 'compute.ServerDeletionRequested.v1':
    case 'compute.ServerTerminated.v1':
      return 'resource-terminated';
    default:
      return null;
  }
}

/** The resource an instance or server event is about. */
const resourceIdOf = (e: RecordedEvent): string | undefined => {
  const d = e.data as { instanceId?: string; serverId?: string };
  return d.instanceId ?? d.serverId;
};

/**
 * CloseConsolesOnResourceStopped (DECISIONS 23): when an instance or server stops or is terminated
 * (requested, done, or seen by a status sync), its open console sessions close. Idempotent: a replayed
 * batch finds them closed.
 */
export class ConsoleSessionCloser implements SubscriptionHandler {
  readonly name = 'saga:console-session-closer';
  readonly batchSize = 200;

  constructor(
    private readonly ports: PortsOf<'events' | 'clock'>,
    private readonly sessions: Sessions,
    private readonly logger: pino.Logger,
  ) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let handled = false;
    for (const e of batch) {
      const reason = closingReason(e);
      const resourceId = reason && resourceIdOf(e);
      if (!reason || !resourceId) continue;
      const open = await (await this.sessions()).find({ filter: { resourceId, status: 'open' }, limit: 100, withTotal: false });
      for (const s of open.items) {
        handled = true;
        await closeConsoleSession(this.ports, { sessionId: s.id, reason, closedBy: 'system:console-sessions' }, { metadata: causedBy(e, { projectId: s.projectId, actor: 'system:console-sessions' }) });
        this.logger.info({ sessionId: s.id, resourceId, reason }, 'console session closed');
      }
    }
    return handled;
  }
}

/** The expiry timer: the due-time index is the sessions model's `expiresAt` of open sessions, so a restart re-arms it. */
export class ConsoleSessionExpiry extends PollingTimer {
  constructor(
    private readonly ports: PortsOf<'events' | 'clock'>,
    private readonly sessions: Sessions,
    logger: pino.Logger,
    intervalMs = 1000,
    clock: Clock = systemClock,
  ) {
    super(clock, logger, intervalMs, 'console-session-expiry');
  }

  protected async poll(now: number): Promise<void> {
    const due = await (await this.sessions()).find({ filter: { status: 'open', expiresAt: { $lte: new Date(now).toISOString() } }, sort: [{ field: 'expiresAt', direction: 1 }], limit: 100, withTotal: false });
    for (const s of due.items) {
      await closeConsoleSession(this.ports, { sessionId: s.id, reason: 'expired', closedBy: 'system:console-expiry' }, { metadata: { projectId: s.projectId, actor: 'system:console-expiry' } }).catch((err) =>
        this.logger.warn({ err: String(err), sessionId: s.id }, 'console session expiry failed; retrying on the next tick'),
      );
    }
  }
}
