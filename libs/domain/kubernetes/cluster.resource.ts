import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { kubeconfigYaml } from './kubeconfig';
import { clusterVersionSchema } from './kubernetes-versions';
import { nodePoolsSchema } from './node-pools';

export type ClusterStatus = 'creating' | 'active' | 'deleting' | 'deleted' | 'error';
export type ClusterOperation = 'create' | 'delete';

export const clusterStream = (id: string) => `cluster-${id}`;

/**
 * Managed Kubernetes clusters (spec 4.10, DECISIONS 14). The version and the node pools' plans are
 * checked against the provider (its versions, its catalog in the region) by the create's lookups;
 * the per-cluster credential lives in the credential vault, the fields hold only its reference.
 */
export const clusterSchema = z.object({
  name: z.string().min(1).max(63),
  region: z.string().min(1).max(64),
  version: clusterVersionSchema,
  nodePools: nodePoolsSchema,
  tags: tagsSchema.default([]),
  /** The vault reference of the kubeconfig's token (never the token). */
  credentialRef: z.string().min(1).max(128).nullable().default(null),
});
export type ClusterFields = z.output<typeof clusterSchema>;

export const clusters: JobResource<typeof clusterSchema, ClusterOperation, ClusterStatus> = {
  context: 'kubernetes',
  name: 'Cluster',
  label: 'Cluster',
  kind: 'cluster',
  stream: clusterStream,
  schema: clusterSchema,
  internal: ['credentialRef'],
  provided: z.object({
    endpoint: z.string().nullable().describe('The API server URL, once the cluster is active'),
    caData: z.string().nullable().describe("The cluster CA, base64 PEM (kubeconfig's certificate-authority-data)"),
  }),
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: {
    // The AI models served on it (DECISIONS 17) go first, as an instance's volumes do: a cluster deleted
    // under them would leave models that serve nothing and whose own delete has nowhere to run.
    delete: (fields, args) =>
      Number(args.models) > 0 ? new DomainError('INVALID_STATE', `Cluster ${fields.name} serves ${String(args.models)} AI model(s); delete them first`) : null,
  },
};

/** The kubeconfig's user: one per cluster, holding the cluster's credential. */
export const clusterUser = (clusterName: string) => `${clusterName}-admin`;

/**
 * The kubeconfig of a cluster (DECISIONS 14): only an active cluster has one (409 INVALID_STATE
 * otherwise); the endpoint and CA are what the provider reported, the token comes from the vault.
 */
export function clusterKubeconfig(cluster: { name: string; status: string; provided: Record<string, unknown> }, token: string | null): string {
  if (cluster.status !== 'active') throw new DomainError('INVALID_STATE', `Cluster ${cluster.name} is ${cluster.status}; its kubeconfig exists once it is active`);
  const { endpoint, caData } = cluster.provided;
  if (typeof endpoint !== 'string' || typeof caData !== 'string' || !token) throw new DomainError('INVALID_STATE', `Cluster ${cluster.name} has no credentials yet`);
  return kubeconfigYaml({ clusterName: cluster.name, endpoint, caData, user: clusterUser(cluster.name), token });
}
