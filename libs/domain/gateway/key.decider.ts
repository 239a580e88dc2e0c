import { DomainError, type Decider } from '../shared/domain-error';
import type { Mode } from '../shared/scope';
import type { KeyLimits, KeyLimitsChanged, KeyMinted, KeyRevoked } from './events';

/** An organization key: `gwk_` + 40 lowercase hex characters (DECISIONS 19). */
export const ORG_KEY_PATTERN = /^gwk_[0-9a-f]{40}$/;
/** What stays visible of a key after it is shown once: its first 12 characters. */
export const orgKeyPrefix = (key: string) => key.slice(0, 12);

export type KeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; keyId: string; projectId: string; mode: Mode; limits: KeyLimits };

export type MintKey = { type: 'MintKey'; keyId: string; projectId: string; name: string; prefix: string; keyHash: string; mode: Mode; limits: KeyLimits; expiresAt?: string | null; now: string };
export type RevokeKey = { type: 'RevokeKey'; keyId: string; projectId: string; now: string };
export type ChangeKeyLimits = { type: 'ChangeKeyLimits'; keyId: string; projectId: string; limits: KeyLimits; now: string };
export type KeyCommand = MintKey | RevokeKey | ChangeKeyLimits;
export type KeyEvent = KeyMinted | KeyRevoked | KeyLimitsChanged;

function checkLimits(limits: KeyLimits): void {
  const bad = (v: number | null) => v !== null && (!Number.isSafeInteger(v) || v < 0);
  if (bad(limits.rpm) || (limits.rpm !== null && limits.rpm < 1)) throw new DomainError('BAD_REQUEST', 'limits.rpm must be a whole number of at least 1, or null');
  if (bad(limits.monthlySpendCapMicros)) throw new DomainError('BAD_REQUEST', 'limits.monthlySpendCapUsd must be zero or more, or null');
}

/** Keys are minted, limited and revoked only through a session (the transport checks who asks). */
export const keyDecider: Decider<KeyCommand, KeyEvent, KeyState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'gateway.KeyMinted.v1':
        return { status: 'active', keyId: event.data.keyId, projectId: event.data.projectId, mode: event.data.mode, limits: event.data.limits };
      case 'gateway.KeyRevoked.v1':
        return state.status === 'active' ? { ...state, status: 'revoked' } : state;
      case 'gateway.KeyLimitsChanged.v1':
        return state.status === 'none' ? state : { ...state, limits: event.data.limits };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'MintKey': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Key ${command.keyId} already exists`);
        checkLimits(command.limits);
        if (command.expiresAt != null && !(Date.parse(command.expiresAt) > Date.parse(command.now))) throw new DomainError('BAD_REQUEST', 'expiresAt must be a time in the future');
        const { type: _t, now, ...rest } = command;
        return [{ type: 'gateway.KeyMinted.v1', data: { ...rest, createdAt: now } }];
      }
      case 'RevokeKey':
        // Another organization's key, or one already revoked, is not found (as for cloud API keys).
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Key not found');
        return [{ type: 'gateway.KeyRevoked.v1', data: { keyId: command.keyId, projectId: command.projectId, revokedAt: command.now } }];
      case 'ChangeKeyLimits':
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Key not found');
        checkLimits(command.limits);
        return [{ type: 'gateway.KeyLimitsChanged.v1', data: { keyId: command.keyId, projectId: command.projectId, limits: command.limits, changedAt: command.now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
