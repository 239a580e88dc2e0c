import { sshKeys } from '../../libs/domain/ssh-keys/ssh-key.resource';
import { simpleResourceProjection, type SimpleResourceDoc } from '../../libs/subscriptions/src/simple-resource-projection';

export type SshKeyDoc = SimpleResourceDoc<typeof sshKeys.schema>;

/** Serves GET /v1/ssh-keys (per project and provider) and key lookups by id; deleted keys are removed. */
export const sshKeysProjection = simpleResourceProjection(sshKeys, {
  name: 'ssh_keys',
  version: 1,
  list: { query: 'GET /v1/ssh-keys?providerId=', equal: ['projectId', 'providerId'], sortable: ['createdAt', 'name'] },
});
