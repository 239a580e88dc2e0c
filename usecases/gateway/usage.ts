import { v7 as uuidv7 } from 'uuid';
import { gatewayUsageStream, GatewayEventTypes, type UsageRecorded } from '../../libs/domain/gateway/events';
import { WrongExpectedRevisionError, type EventStore } from '../../libs/eventstore/src/event-store.port';
import type { CommandContext } from '../../libs/eventstore/src/handle-command';

/**
 * Records one upstream attempt's usage. The attempt's stream is written once (`no_stream`), so a
 * second record of the same (request id, attempt) changes nothing: recording is idempotent.
 * Returns whether this call recorded it.
 */
export async function recordUsage(events: EventStore, usage: Omit<UsageRecorded['data'], 'usageId'>, ctx: CommandContext): Promise<boolean> {
  const stream = gatewayUsageStream(usage.requestId, usage.attempt);
  const data: UsageRecorded['data'] = { usageId: `${usage.requestId}:${usage.attempt}`, ...usage };
  try {
    await events.append(stream, [{ id: uuidv7(), type: GatewayEventTypes.UsageRecorded, data: data as never, metadata: { ...ctx.metadata, mode: usage.mode, schemaVersion: 1 } }], { expectedRevision: 'no_stream' });
    return true;
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return false;
    throw err;
  }
}
