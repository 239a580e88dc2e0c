import { stringify } from 'yaml';

/**
 * The kubeconfig of `GET /v1/kubernetes/clusters/{id}/kubeconfig` (DECISIONS 14): one cluster, one
 * user and one context joining them, which is also the current context. The token is the
 * per-cluster credential from the vault; it is written under the user and nowhere else.
 */
export interface KubeconfigInput {
  clusterName: string;
  /** The API server URL, e.g. `https://203.0.113.10:6443`. */
  endpoint: string;
  /** The cluster CA certificate, PEM then base64, as kubeconfig's `certificate-authority-data`. */
  caData: string;
  user: string;
  token: string;
}

export interface Kubeconfig {
  apiVersion: 'v1';
  kind: 'Config';
  preferences: Record<string, never>;
  clusters: [{ name: string; cluster: { server: string; 'certificate-authority-data': string } }];
  users: [{ name: string; user: { token: string } }];
  contexts: [{ name: string; context: { cluster: string; user: string } }];
  'current-context': string;
}

export const kubeconfigContextName = (input: Pick<KubeconfigInput, 'user' | 'clusterName'>): string => `${input.user}@${input.clusterName}`;

export function kubeconfig(input: KubeconfigInput): Kubeconfig {
  const context = kubeconfigContextName(input);
  return {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: input.clusterName, cluster: { server: input.endpoint, 'certificate-authority-data': input.caData } }],
    users: [{ name: input.user, user: { token: input.token } }],
    contexts: [{ name: context, context: { cluster: input.clusterName, user: input.user } }],
    'current-context': context,
  };
}

/**
 * The kubeconfig as YAML. Written as YAML 1.1, the dialect kubectl's parser reads, so a value
 * such as `yes`, `on` or `1:20` is quoted and stays a string; no line folding of long values.
 */
export function kubeconfigYaml(input: KubeconfigInput): string {
  return stringify(kubeconfig(input), { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
}
