import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { ProviderKeyEventTypes, type ProviderKeyEvent } from '../../libs/domain/identity/provider-keys';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

export interface ProviderKeyDoc extends ReadDoc {
  projectId: string;
  name: string;
  providerId: string;
  prefix: string;
  /** The vault reference of the current secret (never the secret). */
  secretRef: string;
  createdAt: string;
  rotatedAt: string | null;
  lastUsedAt: string | null;
}

export const PROVIDER_KEYS_LIST: ListShape = { query: 'GET /v1/iam/api-keys', equal: ['projectId'], residual: ['providerId'], sortable: ['createdAt', 'name', 'rotatedAt'] };
const LISTS: ListShape[] = [PROVIDER_KEYS_LIST];

/** Provider API keys; a deleted key is removed (its DELETE is 204, then 404). */
export const providerKeysProjection: DocumentProjection<ProviderKeyDoc> = {
  name: 'provider_keys',
  version: 1,
  eventTypes: Object.values(ProviderKeyEventTypes),
  creates: [ProviderKeyEventTypes.ProviderKeyCreated],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { keyId: string }).keyId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as ProviderKeyEvent;
    switch (event.type) {
      case 'identity.ProviderKeyCreated.v1': {
        const d = event.data;
        return { id: d.keyId, _position: recorded.position, projectId: d.projectId, name: d.name, providerId: d.providerId, prefix: d.prefix, secretRef: d.secretRef, createdAt: d.createdAt, rotatedAt: null, lastUsedAt: null };
      }
      case 'identity.ProviderKeyRotated.v1':
        return current && { ...current, _position: recorded.position, prefix: event.data.prefix, secretRef: event.data.secretRef, rotatedAt: event.data.rotatedAt };
      case 'identity.ProviderKeyDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
