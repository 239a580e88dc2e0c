import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { GatewayEventTypes, type KeyLimits, type KeyLimitsChanged, type KeyMinted, type KeyRevoked } from '../../libs/domain/gateway/events';
import type { Mode } from '../../libs/domain/shared/scope';

export interface GatewayKeyDoc extends ReadDoc {
  /** The data scope: `<project>` or `<project>:test`. */
  projectId: string;
  name: string;
  prefix: string;
  keyHash: string;
  mode: Mode;
  limits: KeyLimits;
  revoked: boolean;
  revokedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
}

export const GATEWAY_KEYS_LIST: ListShape = { query: 'GET /api/keys', equal: ['projectId'], residual: ['revoked'], sortable: ['createdAt', 'name'] };
const LISTS = [GATEWAY_KEYS_LIST];

/** Organization keys: GET /api/keys and the gateway's authentication (lookup by keyed hash). */
export const gatewayKeysProjection: DocumentProjection<GatewayKeyDoc> = {
  name: 'gateway_keys',
  version: 1,
  eventTypes: [GatewayEventTypes.KeyMinted, GatewayEventTypes.KeyRevoked, GatewayEventTypes.KeyLimitsChanged],
  lists: LISTS,
  indexes: [...indexesFor(LISTS), { fields: [{ field: 'keyHash', direction: 1 }], unique: true }],
  creates: [GatewayEventTypes.KeyMinted],
  documentId: (event) => (event.data as { keyId: string }).keyId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as KeyMinted | KeyRevoked | KeyLimitsChanged;
    switch (event.type) {
      case 'gateway.KeyMinted.v1': {
        const d = event.data;
        return { id: d.keyId, _position: recorded.position, projectId: d.projectId, name: d.name, prefix: d.prefix, keyHash: d.keyHash, mode: d.mode, limits: d.limits, revoked: false, revokedAt: null, expiresAt: d.expiresAt ?? null, createdAt: d.createdAt };
      }
      case 'gateway.KeyRevoked.v1':
        return current && { ...current, revoked: true, revokedAt: event.data.revokedAt };
      case 'gateway.KeyLimitsChanged.v1':
        return current && { ...current, limits: event.data.limits };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
