import { z } from 'zod';
import { DomainError } from '../shared/domain-error';

/**
 * Kubernetes versions (spec 4.10, DECISIONS 14): the provider lists the versions a new cluster may
 * run (`GET /v1/kubernetes/versions`); a cluster's `version` must be one of them exactly (400).
 */
export const kubernetesVersionSchema = z.object({
  version: z.string().describe('e.g. 1.31.1'),
  latest: z.boolean().describe('The newest version offered'),
});
export type KubernetesVersion = z.output<typeof kubernetesVersionSchema>;
export type KubernetesVersionList = readonly KubernetesVersion[];

const numericParts = (v: string): number[] => v.split(/[.+-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));

/** Newest first: numerically by dotted parts (`1.31.1` before `1.9.0`), text order as the tie-break. */
export function compareKubernetesVersions(a: string, b: string): number {
  const x = numericParts(a.replace(/^v/, ''));
  const y = numericParts(b.replace(/^v/, ''));
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? -1;
    const q = y[i] ?? -1;
    if (Number.isNaN(p) || Number.isNaN(q)) break;
    if (p !== q) return q - p;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The list a route answers from the versions a driver reports: de-duplicated, newest first, the newest marked. */
export function kubernetesVersionList(offered: readonly string[]): KubernetesVersion[] {
  return [...new Set(offered)].sort(compareKubernetesVersions).map((version, i) => ({ version, latest: i === 0 }));
}

/** A cluster create's `version` in a body: checked against the provider's list by `clusterVersionRefusal`. */
export const clusterVersionSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'version is required' : 'version must be a string') })
  .min(1, { error: 'version is required' })
  .max(64, { error: 'version must be one of GET /v1/kubernetes/versions' })
  .describe('One of GET /v1/kubernetes/versions for the provider and region');

/** null when `version` is offered; else the 400 naming the versions that are. */
export function clusterVersionRefusal(version: string, offered: readonly string[]): DomainError | null {
  if (offered.includes(version)) return null;
  const list = kubernetesVersionList(offered).map((v) => v.version);
  return new DomainError(
    'BAD_REQUEST',
    list.length ? `version ${version} is not offered; use one of GET /v1/kubernetes/versions: ${list.join(', ')}` : 'this provider offers no Kubernetes version in this region',
  );
}
