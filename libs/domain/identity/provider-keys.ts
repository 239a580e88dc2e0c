/**
 * Provider API keys (`/v1/iam/api-keys`, DECISIONS 15): the secret lives in the credential vault;
 * events carry only its vault reference and display prefix.
 */
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';

export const providerKeyStream = (keyId: string) => `providerkey-${keyId}`;

type Base = { keyId: string; projectId: string };
export type ProviderKeyCreated = DomainEvent<'identity.ProviderKeyCreated.v1', Base & { name: string; providerId: string; prefix: string; secretRef: string; createdAt: string }>;
export type ProviderKeyRotated = DomainEvent<'identity.ProviderKeyRotated.v1', Base & { prefix: string; secretRef: string; previousRef: string; rotatedAt: string }>;
export type ProviderKeyDeleted = DomainEvent<'identity.ProviderKeyDeleted.v1', Base & { secretRef: string; deletedAt: string }>;
export type ProviderKeyEvent = ProviderKeyCreated | ProviderKeyRotated | ProviderKeyDeleted;
export const ProviderKeyEventTypes = {
  ProviderKeyCreated: 'identity.ProviderKeyCreated.v1',
  ProviderKeyRotated: 'identity.ProviderKeyRotated.v1',
  ProviderKeyDeleted: 'identity.ProviderKeyDeleted.v1',
} as const;

export type ProviderKeyState = { status: 'none' } | { status: 'active' | 'deleted'; projectId: string; secretRef: string };

type At = { now: string };
export type CreateProviderKey = At & Base & { type: 'CreateProviderKey'; name: string; providerId: string; prefix: string; secretRef: string };
export type RotateProviderKey = At & Base & { type: 'RotateProviderKey'; prefix: string; secretRef: string };
export type DeleteProviderKey = At & Base & { type: 'DeleteProviderKey' };
export type ProviderKeyCommand = CreateProviderKey | RotateProviderKey | DeleteProviderKey;

export const providerKeyDecider: Decider<ProviderKeyCommand, ProviderKeyEvent, ProviderKeyState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'identity.ProviderKeyCreated.v1':
        return { status: 'active', projectId: event.data.projectId, secretRef: event.data.secretRef };
      case 'identity.ProviderKeyRotated.v1':
        return state.status === 'none' ? state : { ...state, secretRef: event.data.secretRef };
      case 'identity.ProviderKeyDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    const { keyId, projectId, now } = command;
    if (command.type === 'CreateProviderKey') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Provider key ${keyId} already exists`);
      const { type: _t, now: _n, ...data } = command;
      return [{ type: 'identity.ProviderKeyCreated.v1', data: { ...data, createdAt: now } }];
    }
    // Deleted, missing and another project's keys are one answer (DECISIONS 3 and 15: 204, then 404).
    if (state.status !== 'active' || state.projectId !== projectId) throw new DomainError('NOT_FOUND', 'Provider API key not found');
    if (command.type === 'RotateProviderKey') {
      return [{ type: 'identity.ProviderKeyRotated.v1', data: { keyId, projectId, prefix: command.prefix, secretRef: command.secretRef, previousRef: state.secretRef, rotatedAt: now } }];
    }
    return [{ type: 'identity.ProviderKeyDeleted.v1', data: { keyId, projectId, secretRef: state.secretRef, deletedAt: now } }];
  },
};
