import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ApiKeyIssued, ApiKeyRevoked, ApiKeyUsed, ProjectRole } from '../../libs/domain/identity/events';
import { IdentityEventTypes } from '../../libs/domain/identity/events';

export interface ApiKeyDoc extends ReadDoc {
  projectId: string | null;
  scope: 'project' | 'platform-admin';
  name: string;
  prefix: string;
  keyHash: string;
  role: ProjectRole;
  /** Set when the key acts with a custom role (absent on keys issued before custom roles). */
  customRoleId?: string | null;
  expiresAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

type KeyEvent = ApiKeyIssued | ApiKeyUsed | ApiKeyRevoked;

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const API_KEYS_LIST: ListShape = { query: 'GET /v1/api-keys', equal: ['projectId', 'scope'], residual: ['revoked'], sortable: ['createdAt', 'name', 'lastUsedAt', 'expiresAt'] };
const LISTS: ListShape[] = [API_KEYS_LIST];

/** Serves GET /v1/api-keys and authentication (lookup by keyed hash). */
export const apiKeysProjection: DocumentProjection<ApiKeyDoc> = {
  name: 'api_keys',
  version: 1,
  eventTypes: [IdentityEventTypes.ApiKeyIssued, IdentityEventTypes.ApiKeyUsed, IdentityEventTypes.ApiKeyRevoked],
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts) and the key lookup.
  indexes: [...indexesFor(LISTS), { fields: [{ field: 'keyHash', direction: 1 }], unique: true }],
  documentId: (event) => (event.data as { keyId: string }).keyId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as KeyEvent;
    switch (event.type) {
      case 'identity.ApiKeyIssued.v1':
        return {
          id: event.data.keyId,
          _position: recorded.position,
          projectId: event.data.projectId,
          scope: event.data.scope,
          name: event.data.name,
          prefix: event.data.prefix,
          keyHash: event.data.keyHash,
          role: event.data.role,
          customRoleId: event.data.customRoleId ?? null,
          expiresAt: event.data.expiresAt,
          revoked: false,
          revokedAt: null,
          createdAt: event.data.createdAt,
          lastUsedAt: null,
        };
      case 'identity.ApiKeyUsed.v1':
        return current && { ...current, lastUsedAt: event.data.usedAt };
      case 'identity.ApiKeyRevoked.v1':
        return current && { ...current, revoked: true, revokedAt: event.data.revokedAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
