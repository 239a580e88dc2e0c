import { DomainError, type Decider } from '../shared/domain-error';
import type { ApiKeyIssued, ApiKeyRevoked, ApiKeyUsed, ProjectRole } from './events';

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; keyId: string; projectId: string | null; expiresAt: string | null; lastUsedAt: string | null };

export type IssueApiKey = {
  type: 'IssueApiKey';
  keyId: string;
  projectId: string | null;
  scope: 'project' | 'platform-admin';
  name: string;
  prefix: string;
  keyHash: string;
  role: ProjectRole;
  customRoleId?: string;
  expiresAt: string | null;
  now: string;
};
export type RevokeApiKey = { type: 'RevokeApiKey'; keyId: string; projectId: string | null; now: string };
export type RecordApiKeyUse = { type: 'RecordApiKeyUse'; keyId: string; now: string; minIntervalMs: number };

export type ApiKeyCommand = IssueApiKey | RevokeApiKey | RecordApiKeyUse;
export type ApiKeyEvent = ApiKeyIssued | ApiKeyUsed | ApiKeyRevoked;

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'identity.ApiKeyIssued.v1':
        return { status: 'active', keyId: event.data.keyId, projectId: event.data.projectId, expiresAt: event.data.expiresAt, lastUsedAt: null };
      case 'identity.ApiKeyUsed.v1':
        return state.status === 'none' ? state : { ...state, lastUsedAt: event.data.usedAt };
      case 'identity.ApiKeyRevoked.v1':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueApiKey': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `API key ${command.keyId} already exists`);
        if (command.expiresAt !== null && Date.parse(command.expiresAt) <= Date.parse(command.now)) {
          throw new DomainError('BAD_REQUEST', 'expiresAt must be in the future');
        }
        const { type: _t, now, ...rest } = command;
        return [{ type: 'identity.ApiKeyIssued.v1', data: { ...rest, createdAt: now } }];
      }
      case 'RevokeApiKey': {
        // Another project's key is indistinguishable from a missing one.
        if (state.status === 'none' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'API key not found');
        // DECISIONS 13: a revoked key is gone for its DELETE (it stays listed with revoked: true).
        if (state.status === 'revoked') throw new DomainError('NOT_FOUND', 'API key not found');
        return [{ type: 'identity.ApiKeyRevoked.v1', data: { keyId: command.keyId, projectId: command.projectId, revokedAt: command.now } }];
      }
      case 'RecordApiKeyUse': {
        if (state.status !== 'active') return [];
        if (state.lastUsedAt && Date.parse(command.now) - Date.parse(state.lastUsedAt) < command.minIntervalMs) return [];
        return [{ type: 'identity.ApiKeyUsed.v1', data: { keyId: command.keyId, usedAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
