import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { toCloudEvent } from '../../libs/messaging/src/cloudevents';

/**
 * The body of a delivery (the Standard Webhooks shape `{type, timestamp, data}`): the published
 * name, the event's time, and its data without secrets (as on the topics), plus where it comes
 * from. Built from the recorded event alone, so every attempt sends the same bytes; data, source and
 * `livemode` are the CloudEvent's (the bare project id, never the test-mode scope).
 */
export function deliveryBody(event: RecordedEvent, name: string): string {
  const ce = toCloudEvent(event);
  return JSON.stringify({
    type: name,
    timestamp: event.recordedAt,
    data: ce.data,
    event: { id: event.id, type: event.type, subject: event.streamId, source: ce.source, position: event.position },
    livemode: ce.livemode,
  });
}
