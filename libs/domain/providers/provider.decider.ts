import { DomainError, type Decider } from '../shared/domain-error';
import type { ProviderChanges, ProviderEvent, ProviderKind } from './events';

export type ProviderState =
  | { status: 'none' }
  | { status: 'registered' | 'deleted'; providerId: string; projectId: string; name: ProviderKind; enabled: boolean; region: string | null; credentialsRef: string | null };

export type RegisterProvider = {
  type: 'RegisterProvider';
  providerId: string;
  projectId: string;
  name: ProviderKind;
  enabled: boolean;
  region: string | null;
  credentialsRef: string | null;
  now: string;
};
export type UpdateProvider = { type: 'UpdateProvider'; providerId: string; projectId: string; changes: ProviderChanges; now: string };
export type DeleteProvider = { type: 'DeleteProvider'; providerId: string; projectId: string; now: string };

export type ProviderCommand = RegisterProvider | UpdateProvider | DeleteProvider;

const notFound = () => new DomainError('NOT_FOUND', 'Provider not found');

export const providerDecider: Decider<ProviderCommand, ProviderEvent, ProviderState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'providers.ProviderRegistered.v1': {
        const { createdAt: _c, ...d } = event.data;
        return { status: 'registered', ...d };
      }
      case 'providers.ProviderUpdated.v1':
        return state.status === 'none' ? state : { ...state, ...event.data.changes };
      case 'providers.ProviderDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'RegisterProvider': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Provider ${command.providerId} already exists`);
        const { type: _t, now, ...rest } = command;
        return [{ type: 'providers.ProviderRegistered.v1', data: { ...rest, createdAt: now } }];
      }
      case 'UpdateProvider': {
        // Another project's provider, or a deleted one, is indistinguishable from a missing one.
        if (state.status !== 'registered' || state.projectId !== command.projectId) throw notFound();
        const changes: ProviderChanges = {};
        const c = command.changes;
        if (c.name !== undefined && c.name !== state.name) changes.name = c.name;
        if (c.enabled !== undefined && c.enabled !== state.enabled) changes.enabled = c.enabled;
        if (c.region !== undefined && c.region !== state.region) changes.region = c.region;
        if (c.credentialsRef !== undefined && c.credentialsRef !== state.credentialsRef) changes.credentialsRef = c.credentialsRef;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'providers.ProviderUpdated.v1', data: { providerId: command.providerId, projectId: command.projectId, changes, updatedAt: command.now } }];
      }
      case 'DeleteProvider': {
        if (state.status !== 'registered' || state.projectId !== command.projectId) throw notFound();
        return [{ type: 'providers.ProviderDeleted.v1', data: { providerId: command.providerId, projectId: command.projectId, deletedAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
