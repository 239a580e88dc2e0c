import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { GatewayEventTypes, type ConnectionAdded, type ConnectionDeleted, type ConnectionKind, type ConnectionVerified } from '../../libs/domain/gateway/events';

export interface GatewayConnectionDoc extends ReadDoc {
  /** The data scope: `<project>` or `<project>:test`. */
  projectId: string;
  name: string;
  kind: ConnectionKind;
  baseUrl: string;
  /** The vault's reference of the secret (never the secret; never answered either). */
  secretRef: string;
  status: 'unverified' | 'verified' | 'failed';
  lastVerifiedAt: string | null;
  lastError: string | null;
  models: number | null;
  createdAt: string;
}

export const GATEWAY_CONNECTIONS_LIST: ListShape = { query: 'GET /api/providers', equal: ['projectId'], residual: ['kind', 'status'], sortable: ['createdAt', 'name'] };
const LISTS = [GATEWAY_CONNECTIONS_LIST];

/** Provider connections (GET /api/providers; the upstreams a call's waterfall names). */
export const gatewayConnectionsProjection: DocumentProjection<GatewayConnectionDoc> = {
  name: 'gateway_connections',
  version: 1,
  eventTypes: [GatewayEventTypes.ConnectionAdded, GatewayEventTypes.ConnectionVerified, GatewayEventTypes.ConnectionDeleted],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  creates: [GatewayEventTypes.ConnectionAdded],
  documentId: (event) => (event.data as { connectionId: string }).connectionId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as ConnectionAdded | ConnectionVerified | ConnectionDeleted;
    switch (event.type) {
      case 'gateway.ConnectionAdded.v1': {
        const d = event.data;
        return { id: d.connectionId, _position: recorded.position, projectId: d.projectId, name: d.name, kind: d.kind, baseUrl: d.baseUrl, secretRef: d.secretRef, status: 'unverified', lastVerifiedAt: null, lastError: null, models: null, createdAt: d.createdAt };
      }
      case 'gateway.ConnectionVerified.v1': {
        const d = event.data;
        return current && { ...current, _position: recorded.position, status: d.ok ? 'verified' : 'failed', lastVerifiedAt: d.verifiedAt, lastError: d.error, models: d.models };
      }
      case 'gateway.ConnectionDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
