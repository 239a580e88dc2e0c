import { parse, parseDocument } from 'yaml';
import { kubeconfig, kubeconfigYaml, type KubeconfigInput } from './kubeconfig';

const input: KubeconfigInput = {
  clusterName: 'prod-eu',
  endpoint: 'https://203.0.113.10:6443',
  caData: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n').toString('base64'),
  user: 'prod-eu-admin',
  token: 'kct_9f8e7d6c5b4a39281706f5e4d3c2b1a0',
};

type Named<T> = { name: string } & T;
interface Parsed {
  apiVersion: string;
  kind: string;
  clusters: Named<{ cluster: Record<string, string> }>[];
  users: Named<{ user: Record<string, string> }>[];
  contexts: Named<{ context: { cluster: string; user: string } }>[];
  'current-context': string;
}

/** Paths (dot-joined) of every scalar in `value` equal to `needle`. */
function pathsOf(value: unknown, needle: string, at: string[] = []): string[] {
  if (value === needle) return [at.join('.')];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => pathsOf(v, needle, [...at, k]));
}

describe('kubeconfigYaml', () => {
  it('is a v1 Config with one cluster, user and context that refer to each other, the context current', () => {
    const text = kubeconfigYaml(input);
    const doc = parseDocument(text);
    expect(doc.errors).toEqual([]);
    const config = doc.toJS() as Parsed;
    expect(config.apiVersion).toBe('v1');
    expect(config.kind).toBe('Config');
    expect(config.clusters).toHaveLength(1);
    expect(config.users).toHaveLength(1);
    expect(config.contexts).toHaveLength(1);
    const [cluster] = config.clusters;
    const [user] = config.users;
    const [context] = config.contexts;
    expect(cluster).toEqual({ name: 'prod-eu', cluster: { server: 'https://203.0.113.10:6443', 'certificate-authority-data': input.caData } });
    expect(context.context.cluster).toBe(cluster.name);
    expect(context.context.user).toBe(user.name);
    expect(config['current-context']).toBe(context.name);
    expect(user).toEqual({ name: 'prod-eu-admin', user: { token: input.token } });
  });

  it('holds the credential only under the user', () => {
    const text = kubeconfigYaml(input);
    expect(pathsOf(parse(text), input.token)).toEqual(['users.0.user.token']);
    expect(text.split(input.token)).toHaveLength(2);
  });

  it('is the object kubeconfig() builds, written as YAML', () => {
    expect(parse(kubeconfigYaml(input))).toEqual(kubeconfig(input));
  });

  it('keeps awkward values as the same strings (quoting, not templating)', () => {
    const awkward: KubeconfigInput = {
      clusterName: 'yes', // a boolean to YAML 1.1 readers such as kubectl's
      endpoint: 'https://[2001:db8::10]:6443',
      caData: 'A'.repeat(3000),
      user: 'on',
      token: 'a: b\n- "c" # d\'e',
    };
    const text = kubeconfigYaml(awkward);
    for (const version of ['1.1', '1.2'] as const) {
      const config = parse(text, { version }) as Parsed;
      expect(config.clusters[0].name).toBe('yes');
      expect(config.users[0].name).toBe('on');
      expect(config.users[0].user.token).toBe(awkward.token);
      expect(config.clusters[0].cluster['certificate-authority-data']).toBe(awkward.caData);
      expect(config.clusters[0].cluster.server).toBe(awkward.endpoint);
      expect(config['current-context']).toBe('on@yes');
      expect(config.contexts[0].context).toEqual({ cluster: 'yes', user: 'on' });
    }
    expect(text).toContain(`certificate-authority-data: ${awkward.caData}\n`); // not folded
  });
});
