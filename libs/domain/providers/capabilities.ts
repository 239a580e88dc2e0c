import type { ProviderKind } from './events';

/** What a provider kind may offer beyond compute (DECISIONS 14): exactly these names, in this order. */
export const CAPABILITIES = [
  'elastic-ips',
  'vlans',
  'firewalls',
  'private-networks',
  'network-databases',
  'interconnections',
  'volumes',
  'snapshots',
  'file-systems',
  'buckets',
  'kubernetes',
  'databases',
  'models',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * What each kind supports, modelled on the provider it stands in for (libs/providers/README.md):
 * bare metal (Latitude-like) has layer-2 networking but no block storage, object storage or managed
 * Kubernetes; the public cloud (DigitalOcean-like) has everything but VLANs; the multi-cloud
 * abstraction (SkyPilot-like) manages storage, clusters and models, not the network underneath; AI
 * models are its alone (DECISIONS 17: a deploy is a job on the multi-cloud provider).
 */
export const PROVIDER_CAPABILITIES: Record<ProviderKind, readonly Capability[]> = {
  provider_baremetal: ['elastic-ips', 'vlans', 'firewalls', 'private-networks', 'network-databases', 'interconnections', 'file-systems', 'databases'],
  provider_publiccloud: [
    'elastic-ips',
    'firewalls',
    'private-networks',
    'network-databases',
    'interconnections',
    'volumes',
    'snapshots',
    'file-systems',
    'buckets',
    'kubernetes',
    'databases',
  ],
  provider_multicloud: ['volumes', 'file-systems', 'buckets', 'kubernetes', 'models'],
};

export const isCapability = (value: unknown): value is Capability => typeof value === 'string' && (CAPABILITIES as readonly string[]).includes(value);

export const supportsCapability = (kind: ProviderKind, capability: Capability): boolean => PROVIDER_CAPABILITIES[kind].includes(capability);
