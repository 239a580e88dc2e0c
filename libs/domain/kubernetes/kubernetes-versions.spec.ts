import { DomainError } from '../shared/domain-error';
import { clusterVersionRefusal, clusterVersionSchema, compareKubernetesVersions, kubernetesVersionList, kubernetesVersionSchema } from './kubernetes-versions';

describe('Kubernetes versions', () => {
  it('lists the offered versions newest first, numerically, without duplicates, the newest marked', () => {
    expect(kubernetesVersionList(['1.9.0', '1.30.5', '1.31.1', '1.29.9', '1.30.5', '1.30.10'])).toEqual([
      { version: '1.31.1', latest: true },
      { version: '1.30.10', latest: false },
      { version: '1.30.5', latest: false },
      { version: '1.29.9', latest: false },
      { version: '1.9.0', latest: false },
    ]);
    expect(kubernetesVersionList([])).toEqual([]);
    for (const entry of kubernetesVersionList(['1.31.1'])) expect(kubernetesVersionSchema.parse(entry)).toEqual(entry);
  });

  it('orders a longer version after its prefix and leaves odd spellings in text order', () => {
    expect(['1.30', '1.30.1'].sort(compareKubernetesVersions)).toEqual(['1.30.1', '1.30']);
    expect(['v1.30.1', 'v1.31.0'].sort(compareKubernetesVersions)).toEqual(['v1.31.0', 'v1.30.1']);
    expect(compareKubernetesVersions('1.31.1', '1.31.1')).toBe(0);
  });

  it('accepts an offered version', () => {
    expect(clusterVersionRefusal('1.30.5', ['1.29.9', '1.30.5', '1.31.1'])).toBeNull();
  });

  it.each([
    ['1.30', ['1.29.9', '1.30.5', '1.31.1'], 'version 1.30 is not offered; use one of GET /v1/kubernetes/versions: 1.31.1, 1.30.5, 1.29.9'],
    ['v1.30.5', ['1.30.5'], 'version v1.30.5 is not offered; use one of GET /v1/kubernetes/versions: 1.30.5'],
    ['1.31.1', [], 'this provider offers no Kubernetes version in this region'],
  ])('refuses %j from %j with 400: %s', (version, offered, message) => {
    const refusal = clusterVersionRefusal(version, offered);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal?.code).toBe('BAD_REQUEST');
    expect(refusal?.message).toBe(message);
  });

  it('the body schema requires a non-empty string', () => {
    expect(clusterVersionSchema.parse('1.31.1')).toBe('1.31.1');
    expect(clusterVersionSchema.safeParse(undefined).error?.issues[0].message).toBe('version is required');
    expect(clusterVersionSchema.safeParse('').error?.issues[0].message).toBe('version is required');
    expect(clusterVersionSchema.safeParse(1.31).error?.issues[0].message).toBe('version must be a string');
  });
});
