import { deciderSpec } from '../shared/decider-spec';
import type { ProviderEvent } from './events';
import { providerDecider, type RegisterProvider } from './provider.decider';

const given = deciderSpec(providerDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const register: RegisterProvider = { type: 'RegisterProvider', providerId: 'pv1', projectId: 'p1', name: 'provider_publiccloud', enabled: true, region: 'us-east-1', credentialsRef: 'vault:1', now };
const registered: ProviderEvent = {
  type: 'providers.ProviderRegistered.v1',
  data: { providerId: 'pv1', projectId: 'p1', name: 'provider_publiccloud', enabled: true, region: 'us-east-1', credentialsRef: 'vault:1', createdAt: now },
};
const deleted: ProviderEvent = { type: 'providers.ProviderDeleted.v1', data: { providerId: 'pv1', projectId: 'p1', deletedAt: later } };
const update = (changes: Record<string, unknown>, projectId = 'p1') => ({ type: 'UpdateProvider', providerId: 'pv1', projectId, changes, now: later }) as const;
const updated = (changes: Record<string, unknown>): ProviderEvent => ({ type: 'providers.ProviderUpdated.v1', data: { providerId: 'pv1', projectId: 'p1', changes, updatedAt: later } });

describe('provider decider', () => {
  describe('RegisterProvider', () => {
    it('registers a provider, its credentials only as a vault reference', () => {
      given([]).when(register).then([registered]);
    });

    it('refuses an id already registered (deleted or not)', () => {
      given([registered]).when(register).thenThrows('CONFLICT');
      given([registered, deleted]).when(register).thenThrows('CONFLICT');
    });
  });

  describe('UpdateProvider', () => {
    it('records only the fields that change', () => {
      given([registered]).when(update({ enabled: false, region: 'us-east-1', name: 'provider_publiccloud' })).then([updated({ enabled: false })]);
      given([registered]).when(update({ name: 'provider_multicloud', region: null, credentialsRef: null })).then([updated({ name: 'provider_multicloud', region: null, credentialsRef: null })]);
    });

    it('records nothing when nothing changes, also against an earlier update', () => {
      given([registered]).when(update({})).thenNothingHappens();
      given([registered]).when(update({ enabled: true, credentialsRef: 'vault:1' })).thenNothingHappens();
      given([registered, updated({ region: 'eu-west-1' })]).when(update({ region: 'eu-west-1' })).thenNothingHappens();
      given([registered, updated({ region: 'eu-west-1' })]).when(update({ region: 'us-east-1' })).then([updated({ region: 'us-east-1' })]);
    });

    it('answers NOT_FOUND for a missing, deleted or other project\'s provider', () => {
      given([]).when(update({ enabled: false })).thenThrows('NOT_FOUND');
      given([registered, deleted]).when(update({ enabled: false })).thenThrows('NOT_FOUND');
      given([registered]).when(update({ enabled: false }, 'p2')).thenThrows('NOT_FOUND');
    });
  });

  describe('DeleteProvider', () => {
    const del = (projectId = 'p1') => ({ type: 'DeleteProvider', providerId: 'pv1', projectId, now: later }) as const;

    it('deletes a registered provider', () => {
      given([registered]).when(del()).then([deleted]);
      given([registered, updated({ enabled: false })]).when(del()).then([deleted]);
    });

    it('answers NOT_FOUND for a missing, already deleted or other project\'s provider', () => {
      given([]).when(del()).thenThrows('NOT_FOUND');
      given([registered, deleted]).when(del()).thenThrows('NOT_FOUND');
      given([registered]).when(del('p2')).thenThrows('NOT_FOUND');
    });
  });
});
