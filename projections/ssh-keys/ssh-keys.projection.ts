import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { SshKeyEvent } from '../../libs/domain/ssh-keys/events';
import { SshKeyEventTypes } from '../../libs/domain/ssh-keys/events';
import type { SshKeyAlgorithm } from '../../libs/domain/ssh-keys/openssh-public-key';

export interface SshKeyDoc extends ReadDoc {
  projectId: string;
  providerId: string;
  name: string;
  publicKey: string;
  algorithm: SshKeyAlgorithm;
  bits: number;
  fingerprint: string;
  fingerprintMd5: string;
  createdAt: string;
}

/** Serves GET /v1/ssh-keys (per project and provider) and key lookups by id; deleted keys are removed. */
export const sshKeysProjection: DocumentProjection<SshKeyDoc> = {
  name: 'ssh_keys',
  version: 1,
  eventTypes: [SshKeyEventTypes.SshKeyAdded, SshKeyEventTypes.SshKeyDeleted],
  indexes: [
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'providerId', direction: 1 }, { field: 'createdAt', direction: -1 }] },
  ],
  documentId: (event) => (event.data as { keyId: string }).keyId,
  evolve: (_current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as SshKeyEvent;
    switch (event.type) {
      case 'compute.SshKeyAdded.v1': {
        const { keyId, ...rest } = event.data;
        return { id: keyId, _position: recorded.position, ...rest };
      }
      case 'compute.SshKeyDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
