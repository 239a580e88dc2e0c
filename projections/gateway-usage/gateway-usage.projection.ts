import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { GatewayEventTypes, type UsageRecorded } from '../../libs/domain/gateway/events';

export type GatewayUsageDoc = ReadDoc & Omit<UsageRecorded['data'], 'usageId' | 'recordedAt'> & { createdAt: string };

/** A day's spend of one key on one model: the sum of its usage events. */
export interface GatewaySpendDoc extends ReadDoc {
  projectId: string;
  keyId: string;
  model: string;
  day: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

export const GATEWAY_USAGE_LIST: ListShape = { query: 'GET /api/usage', equal: ['projectId'], residual: ['keyId', 'model', 'day'], sortable: ['createdAt'] };
export const GATEWAY_SPEND_LIST: ListShape = { query: 'GET /api/spend', equal: ['projectId'], residual: ['keyId', 'model', 'day'], sortable: ['day'], defaultSort: [{ field: 'day', direction: -1 }] };

/** One document per upstream attempt that produced tokens (GET /api/usage). */
export const gatewayUsageProjection: DocumentProjection<GatewayUsageDoc> = {
  name: 'gateway_usage',
  version: 1,
  eventTypes: [GatewayEventTypes.UsageRecorded],
  lists: [GATEWAY_USAGE_LIST],
  indexes: indexesFor([GATEWAY_USAGE_LIST]),
  creates: [GatewayEventTypes.UsageRecorded],
  documentId: (event) => (event.data as UsageRecorded['data']).usageId,
  evolve: (_current, recorded: RecordedEvent) => {
    const { usageId, recordedAt, ...rest } = recorded.data as UsageRecorded['data'];
    return { ...rest, id: usageId, _position: recorded.position, createdAt: recordedAt };
  },
};

/** Spend per key, model and day (GET /api/spend): each usage event added once (the runner skips positions it has). */
export const gatewaySpendProjection: DocumentProjection<GatewaySpendDoc> = {
  name: 'gateway_spend',
  version: 1,
  eventTypes: [GatewayEventTypes.UsageRecorded],
  lists: [GATEWAY_SPEND_LIST],
  indexes: indexesFor([GATEWAY_SPEND_LIST]),
  documentId: (event) => {
    const d = event.data as UsageRecorded['data'];
    return `${d.projectId}|${d.keyId}|${d.model}|${d.day}`;
  },
  evolve: (current, recorded: RecordedEvent) => {
    const d = recorded.data as UsageRecorded['data'];
    const base = current ?? { id: '', _position: 0, projectId: d.projectId, keyId: d.keyId, model: d.model, day: d.day, requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 };
    return { ...base, _position: recorded.position, requests: base.requests + 1, inputTokens: base.inputTokens + d.inputTokens, outputTokens: base.outputTokens + d.outputTokens, costMicros: base.costMicros + d.costMicros };
  },
};
