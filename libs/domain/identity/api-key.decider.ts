import { DomainError, type Decider } from '../shared/domain-error';
import type { ApiKeyGrantVoided, ApiKeyIssued, ApiKeyRevoked, ApiKeyUsed, ProjectRole } from './events';

export type ApiKeyState =
  | { status: 'none' }
  /** The key's custom-role grant was voided before the key was issued: it never will be. */
  | { status: 'voided'; roleId: string }
  | { status: 'active' | 'revoked'; keyId: string; projectId: string | null; expiresAt: string | null; lastUsedAt: string | null; customRoleId: string | null; roleGrant: string | null };

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
  /** The grant of `customRoleId` reserved on the role's stream (custom-roles.ts GrantRole). */
  roleGrant?: string;
  expiresAt: string | null;
  now: string;
};
export type RevokeApiKey = { type: 'RevokeApiKey'; keyId: string; projectId: string | null; now: string };
export type RecordApiKeyUse = { type: 'RecordApiKeyUse'; keyId: string; now: string; minIntervalMs: number };
/** A custom role's delete closes a key that is not issued yet (its grant never happened, or not yet): nothing when it is. */
export type VoidApiKeyGrant = { type: 'VoidApiKeyGrant'; keyId: string; projectId: string | null; roleId: string; grantId: string; now: string };

export type ApiKeyCommand = IssueApiKey | RevokeApiKey | RecordApiKeyUse | VoidApiKeyGrant;
export type ApiKeyEvent = ApiKeyIssued | ApiKeyUsed | ApiKeyRevoked | ApiKeyGrantVoided;

/** Whether the key (as folded from its stream) acts with the custom role `roleId` now. */
export const apiKeyHoldsRole = (state: ApiKeyState, roleId: string): boolean => state.status === 'active' && state.customRoleId === roleId;

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'identity.ApiKeyIssued.v1': {
        const d = event.data;
        return { status: 'active', keyId: d.keyId, projectId: d.projectId, expiresAt: d.expiresAt, lastUsedAt: null, customRoleId: d.customRoleId ?? null, roleGrant: d.roleGrant ?? null };
      }
      case 'identity.ApiKeyUsed.v1':
        return state.status === 'active' || state.status === 'revoked' ? { ...state, lastUsedAt: event.data.usedAt } : state;
      case 'identity.ApiKeyRevoked.v1':
        return state.status === 'active' ? { ...state, status: 'revoked' } : state;
      case 'identity.ApiKeyGrantVoided.v1':
        return state.status === 'none' ? { status: 'voided', roleId: event.data.roleId } : state;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueApiKey': {
        // The role was deleted between this key's grant and its issue: the delete won.
        if (state.status === 'voided') throw new DomainError('CONFLICT', `Role ${state.roleId} was deleted while the key was being issued`);
        if (state.status !== 'none') throw new DomainError('CONFLICT', `API key ${command.keyId} already exists`);
        if (command.expiresAt !== null && Date.parse(command.expiresAt) <= Date.parse(command.now)) {
          throw new DomainError('BAD_REQUEST', 'expiresAt must be in the future');
        }
        const { type: _t, now, ...rest } = command;
        return [{ type: 'identity.ApiKeyIssued.v1', data: { ...rest, createdAt: now } }];
      }
      case 'RevokeApiKey': {
        // Another project's key is indistinguishable from a missing one.
        if (state.status === 'none' || state.status === 'voided' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'API key not found');
        // DECISIONS 13: a revoked key is gone for its DELETE (it stays listed with revoked: true).
        if (state.status === 'revoked') throw new DomainError('NOT_FOUND', 'API key not found');
        return [{ type: 'identity.ApiKeyRevoked.v1', data: { keyId: command.keyId, projectId: command.projectId, revokedAt: command.now } }];
      }
      case 'VoidApiKeyGrant':
        if (state.status !== 'none') return [];
        return [{ type: 'identity.ApiKeyGrantVoided.v1', data: { keyId: command.keyId, projectId: command.projectId, roleId: command.roleId, grantId: command.grantId, voidedAt: command.now } }];
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
