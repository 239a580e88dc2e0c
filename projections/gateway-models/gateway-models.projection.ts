import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { GatewayEventTypes, type CustomModelChanged, type CustomModelCreated, type CustomModelDeleted, type CustomModelFields, type OrgModelKind, type WaterfallSet, type WaterfallTarget } from '../../libs/domain/gateway/events';

/** One document per (data scope, model): `${scope}|${model}`. */
export const orgModelDocId = (scope: string, model: string) => `${scope}|${model}`;

export interface GatewayCustomModelDoc extends ReadDoc, CustomModelFields {
  /** Absent on documents of models created before local models existed: custom. */
  kind?: OrgModelKind;
  projectId: string;
  alias: string;
  createdAt: string;
}

export interface GatewayWaterfallDoc extends ReadDoc {
  projectId: string;
  model: string;
  targets: WaterfallTarget[];
  setAt: string;
}

export const GATEWAY_CUSTOM_MODELS_LIST: ListShape = { query: 'GET /api/models (an organization key)', equal: ['projectId'], sortable: ['createdAt'] };

/** An organization's custom and local models (GET /api/models with a key, /v1/models, the model a call names). */
export const gatewayCustomModelsProjection: DocumentProjection<GatewayCustomModelDoc> = {
  name: 'gateway_custom_models',
  version: 1,
  eventTypes: [GatewayEventTypes.CustomModelCreated, GatewayEventTypes.CustomModelChanged, GatewayEventTypes.CustomModelDeleted],
  lists: [GATEWAY_CUSTOM_MODELS_LIST],
  indexes: indexesFor([GATEWAY_CUSTOM_MODELS_LIST]),
  creates: [GatewayEventTypes.CustomModelCreated],
  documentId: (event) => {
    const d = event.data as { projectId: string; alias: string };
    return orgModelDocId(d.projectId, d.alias);
  },
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as CustomModelCreated | CustomModelChanged | CustomModelDeleted;
    switch (event.type) {
      case 'gateway.CustomModelCreated.v1': {
        const { projectId, alias, connectionId, upstreamModel, price, maxOutputTokens, createdAt } = event.data;
        return { id: orgModelDocId(projectId, alias), _position: recorded.position, projectId, alias, kind: event.data.kind ?? 'custom', connectionId, upstreamModel, price, maxOutputTokens, createdAt };
      }
      case 'gateway.CustomModelChanged.v1':
        return current && { ...current, ...event.data.changes, _position: recorded.position };
      case 'gateway.CustomModelDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};

/** Waterfalls an organization set (the call's upstreams; a model without one uses its own connection, or the simulator). */
export const gatewayWaterfallsProjection: DocumentProjection<GatewayWaterfallDoc> = {
  name: 'gateway_waterfalls',
  version: 1,
  eventTypes: [GatewayEventTypes.WaterfallSet],
  documentId: (event) => {
    const d = event.data as WaterfallSet['data'];
    return orgModelDocId(d.projectId, d.model);
  },
  evolve: (_current, recorded: RecordedEvent) => {
    const d = recorded.data as WaterfallSet['data'];
    return { id: orgModelDocId(d.projectId, d.model), _position: recorded.position, projectId: d.projectId, model: d.model, targets: d.targets, setAt: d.setAt };
  },
};
