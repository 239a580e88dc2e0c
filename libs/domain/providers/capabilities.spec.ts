import { PROVIDER_KINDS } from './events';
import { CAPABILITIES, PROVIDER_CAPABILITIES, isCapability, supportsCapability } from './capabilities';

describe('provider capabilities', () => {
  it('are exactly the names of DECISIONS 14', () => {
    expect([...CAPABILITIES].sort()).toEqual(
      ['buckets', 'databases', 'elastic-ips', 'file-systems', 'firewalls', 'interconnections', 'kubernetes', 'models', 'network-databases', 'private-networks', 'snapshots', 'vlans', 'volumes'],
    );
  });

  it('are declared for every kind, without duplicates, in the canonical order', () => {
    expect(Object.keys(PROVIDER_CAPABILITIES).sort()).toEqual([...PROVIDER_KINDS].sort());
    for (const kind of PROVIDER_KINDS) {
      const list = PROVIDER_CAPABILITIES[kind];
      expect(list.every(isCapability)).toBe(true);
      expect(list).toEqual(CAPABILITIES.filter((c) => list.includes(c)));
    }
  });

  it('leave some operation unsupported by some kind, and every capability supported by one', () => {
    for (const c of CAPABILITIES) expect(PROVIDER_KINDS.some((k) => supportsCapability(k, c))).toBe(true);
    expect(supportsCapability('provider_baremetal', 'volumes')).toBe(false);
    expect(supportsCapability('provider_multicloud', 'vlans')).toBe(false);
    expect(supportsCapability('provider_publiccloud', 'vlans')).toBe(false);
    expect(supportsCapability('provider_baremetal', 'vlans')).toBe(true);
    expect(isCapability('vpn')).toBe(false);
  });
});
