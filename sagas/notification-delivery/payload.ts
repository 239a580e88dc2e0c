import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { stripSecrets } from '../../libs/messaging/src/cloudevents';

/**
 * The body of a delivery (the Standard Webhooks shape `{type, timestamp, data}`): the published
 * name, the event's time, and its data without secrets (as on the topics), plus where it comes
 * from. Built from the recorded event alone, so every attempt sends the same bytes.
 */
export function deliveryBody(event: RecordedEvent, name: string): string {
  return JSON.stringify({
    type: name,
    timestamp: event.recordedAt,
    data: stripSecrets(event.data ?? {}),
    event: { id: event.id, type: event.type, subject: event.streamId, position: event.position },
    livemode: event.metadata?.mode !== 'test',
  });
}
