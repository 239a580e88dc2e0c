import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { indexOn } from '../../libs/readstore/src/list-shapes';
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
  expiresAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

type KeyEvent = ApiKeyIssued | ApiKeyUsed | ApiKeyRevoked;

/** Serves GET /v1/api-keys and authentication (lookup by keyed hash). */
export const apiKeysProjection: DocumentProjection<ApiKeyDoc> = {
  name: 'api_keys',
  version: 1,
  eventTypes: [IdentityEventTypes.ApiKeyIssued, IdentityEventTypes.ApiKeyUsed, IdentityEventTypes.ApiKeyRevoked],
  // List indexes: [equality fields, sort field (both ways), id], see libs/readstore/src/list-shapes.ts.
  indexes: [
    { fields: [{ field: 'keyHash', direction: 1 }], unique: true },
    indexOn('projectId', 'scope', '-createdAt', 'id'),
    indexOn('projectId', 'scope', 'createdAt', 'id'),
    indexOn('projectId', 'scope', 'name', 'id'),
    indexOn('projectId', 'scope', '-name', 'id'),
    indexOn('projectId', 'scope', 'lastUsedAt', 'id'),
    indexOn('projectId', 'scope', '-lastUsedAt', 'id'),
    indexOn('projectId', 'scope', 'expiresAt', 'id'),
    indexOn('projectId', 'scope', '-expiresAt', 'id'),
  ],
  lists: [{ query: 'GET /v1/api-keys', equal: ['projectId', 'scope'], residual: ['revoked'], sortable: ['createdAt', 'name', 'lastUsedAt', 'expiresAt'] }],
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
