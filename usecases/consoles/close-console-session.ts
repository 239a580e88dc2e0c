import { consoleSessionDecider, consoleSessionStream, type CloseReason } from '../../libs/domain/consoles/console-session';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { PortsOf } from '../../libs/runtime/src/ports';

/**
 * Closes a console session (DECISIONS 23): a client's DELETE (`strict`: 409 on a closed session), the
 * expiry timer, and the process that closes a stopped or terminated resource's sessions (no-ops on a
 * closed one, so a replay closes nothing twice). Returns the position written (null: nothing).
 */
export async function closeConsoleSession(
  ports: PortsOf<'events' | 'clock'>,
  input: { sessionId: string; reason: CloseReason; closedBy: string; strict?: boolean },
  ctx: CommandContext,
): Promise<number | null> {
  const command = { type: 'CloseConsoleSession' as const, reason: input.reason, strict: input.strict ?? false, closedBy: input.closedBy, now: new Date(ports.clock.now()).toISOString() };
  return (await handleCommand(ports.events, consoleSessionStream(input.sessionId), consoleSessionDecider, command, ctx)).position;
}
