import { v5 as uuidv5 } from 'uuid';
import { DomainError, type Decider } from '../shared/domain-error';
import type { SshKeyAdded, SshKeyEvent } from './events';

export type SshKeyState =
  | { status: 'none' }
  | { status: 'active' | 'deleted'; keyId: string; projectId: string; providerId: string; fingerprint: string };

export type AddSshKey = { type: 'AddSshKey'; now: string } & Omit<SshKeyAdded['data'], 'createdAt'>;
export type DeleteSshKey = { type: 'DeleteSshKey'; keyId: string; projectId: string; providerId: string; now: string };
export type SshKeyCommand = AddSshKey | DeleteSshKey;

const SSH_KEY_NAMESPACE = '4b0f7c1e-2a57-4d0e-9a55-0d1c7a3f8e21';

/**
 * A key's id is derived from (project, provider, fingerprint), so "one key per fingerprint and
 * provider" is guarded by the stream's expected revision: a duplicate lands on the same stream
 * and is refused there, also under concurrent requests. Re-adding a deleted key revives the id.
 */
export const sshKeyIdFor = (projectId: string, providerId: string, fingerprint: string): string =>
  uuidv5(`${projectId}/${providerId}/${fingerprint}`, SSH_KEY_NAMESPACE);

export const sshKeyDecider: Decider<SshKeyCommand, SshKeyEvent, SshKeyState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'compute.SshKeyAdded.v1': {
        const { keyId, projectId, providerId, fingerprint } = event.data;
        return { status: 'active', keyId, projectId, providerId, fingerprint };
      }
      case 'compute.SshKeyDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'AddSshKey': {
        if (command.keyId !== sshKeyIdFor(command.projectId, command.providerId, command.fingerprint)) {
          throw new DomainError('BAD_REQUEST', 'SSH key id does not match its fingerprint');
        }
        if (state.status === 'active') throw new DomainError('CONFLICT', `An SSH key with fingerprint ${command.fingerprint} already exists for this provider`);
        const { type: _t, now, ...data } = command;
        return [{ type: 'compute.SshKeyAdded.v1', data: { ...data, createdAt: now } }];
      }
      case 'DeleteSshKey': {
        // Another project's (or provider's) key is indistinguishable from a missing one.
        if (state.status !== 'active' || state.projectId !== command.projectId || state.providerId !== command.providerId) {
          throw new DomainError('NOT_FOUND', 'SSH key not found');
        }
        return [{ type: 'compute.SshKeyDeleted.v1', data: { keyId: state.keyId, projectId: state.projectId, providerId: state.providerId, fingerprint: state.fingerprint, deletedAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
