import { z } from 'zod';
import type { CloudEvent } from '../../../../libs/messaging/src/cloudevents';

/** The CloudEvent of the topics (DECISIONS 20), its `type` named `eventType` (JSON:API reserves `type`). */
export const cloudEventAttributes = z.object({
  specversion: z.literal('1.0'),
  id: z.string(),
  eventType: z.string().describe('`<context>.<Name>.v<N>`: its prefix names the context and the topic `cloud.<context>.events.v1`'),
  source: z.string(),
  subject: z.string().describe('The stream the event belongs to, e.g. `instance-<id>`'),
  time: z.string().describe('Commit time, ISO 8601 UTC'),
  datacontenttype: z.literal('application/json'),
  data: z.record(z.string(), z.unknown()),
  position: z.number().int().describe("The event's place in the log: `after` / `Last-Event-ID` of the streams"),
  streamrevision: z.number().int(),
  correlationid: z.string().optional(),
  causationid: z.string().optional(),
  livemode: z.boolean(),
});

export const eventAttributes = ({ type, ...rest }: CloudEvent) => ({ ...rest, eventType: type });
export const eventResource = (event: CloudEvent) => ({ id: event.id, type: 'events' as const, attributes: eventAttributes(event) });
