import type { DomainEvent } from '../shared/domain-error';

export const PROVIDER_KINDS = ['provider_baremetal', 'provider_multicloud', 'provider_publiccloud'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export type ProviderRegistered = DomainEvent<
  'providers.ProviderRegistered.v1',
  {
    providerId: string;
    projectId: string;
    name: ProviderKind;
    enabled: boolean;
    region: string | null;
    /** Reference into the credential vault; the credentials themselves never enter an event. */
    credentialsRef: string | null;
    createdAt: string;
  }
>;

export interface ProviderChanges {
  name?: ProviderKind;
  enabled?: boolean;
  region?: string | null;
  credentialsRef?: string | null;
}

export type ProviderUpdated = DomainEvent<'providers.ProviderUpdated.v1', { providerId: string; projectId: string; changes: ProviderChanges; updatedAt: string }>;

export type ProviderDeleted = DomainEvent<'providers.ProviderDeleted.v1', { providerId: string; projectId: string; deletedAt: string }>;

export type ProviderEvent = ProviderRegistered | ProviderUpdated | ProviderDeleted;

export const ProviderEventTypes = {
  ProviderRegistered: 'providers.ProviderRegistered.v1',
  ProviderUpdated: 'providers.ProviderUpdated.v1',
  ProviderDeleted: 'providers.ProviderDeleted.v1',
} as const;

export const providerStream = (providerId: string) => `provider-${providerId}`;
