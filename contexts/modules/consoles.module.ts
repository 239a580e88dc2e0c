import { ConsoleSessionEventTypes } from '../../libs/domain/consoles/console-session';
import { consoleSessionsProjection } from '../../projections/console-sessions/console-sessions.projection';
import { ConsoleSessionCloser, ConsoleSessionExpiry } from '../../sagas/console-sessions/console-sessions';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Console sessions on instances and servers (DECISIONS 23): their own streams, closed at expiry and when the resource stops. */
export const consolesModule: ContextModule = {
  name: 'consoles',
  projections: [consoleSessionsProjection],
  processManagers: (rt) => [new ConsoleSessionCloser(rt, () => rt.projections.collection(consoleSessionsProjection), rt.logger)],
  timers: (rt) => [new ConsoleSessionExpiry(rt, () => rt.projections.collection(consoleSessionsProjection), rt.logger, 5000, rt.clock)],
  eventTypes: Object.values(ConsoleSessionEventTypes),
};
