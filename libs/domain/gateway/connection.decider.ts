import { DomainError, type Decider } from '../shared/domain-error';
import type { ConnectionAdded, ConnectionDeleted, ConnectionKind, ConnectionVerified } from './events';

export type ConnectionState = { status: 'none' } | { status: 'active' | 'deleted'; projectId: string };

export type AddConnection = { type: 'AddConnection'; connectionId: string; projectId: string; name: string; kind: ConnectionKind; baseUrl: string; secretRef: string; now: string };
export type RecordVerification = { type: 'RecordVerification'; connectionId: string; projectId: string; ok: boolean; models: number | null; error: string | null; now: string };
export type DeleteConnection = { type: 'DeleteConnection'; connectionId: string; projectId: string; now: string };
export type ConnectionCommand = AddConnection | RecordVerification | DeleteConnection;
export type ConnectionEvent = ConnectionAdded | ConnectionVerified | ConnectionDeleted;

/**
 * A base URL an upstream client may call: http(s), no credentials in it (the secret is a field of its
 * own, kept in the vault), no query or fragment (the SDKs append their routes to it).
 */
export function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('BAD_REQUEST', 'baseUrl: must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DomainError('BAD_REQUEST', 'baseUrl: must be an http(s) URL');
  if (url.username || url.password) throw new DomainError('BAD_REQUEST', 'baseUrl: must not carry credentials; send the secret as `secret`');
  if (url.search || url.hash) throw new DomainError('BAD_REQUEST', 'baseUrl: must not carry a query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** Provider connections of an organization (DECISIONS 19): added, verified (each verification a fact), deleted. */
export const connectionDecider: Decider<ConnectionCommand, ConnectionEvent, ConnectionState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'gateway.ConnectionAdded.v1':
        return { status: 'active', projectId: event.data.projectId };
      case 'gateway.ConnectionVerified.v1':
        return state;
      case 'gateway.ConnectionDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'AddConnection': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Connection ${command.connectionId} already exists`);
        const { type: _t, now, ...rest } = command;
        return [{ type: 'gateway.ConnectionAdded.v1', data: { ...rest, baseUrl: checkBaseUrl(command.baseUrl), createdAt: now } }];
      }
      case 'RecordVerification': {
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Connection not found');
        const { type: _t, now, ...rest } = command;
        return [{ type: 'gateway.ConnectionVerified.v1', data: { ...rest, verifiedAt: now } }];
      }
      case 'DeleteConnection':
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Connection not found');
        return [{ type: 'gateway.ConnectionDeleted.v1', data: { connectionId: command.connectionId, projectId: command.projectId, deletedAt: command.now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
