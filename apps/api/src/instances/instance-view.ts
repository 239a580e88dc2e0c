import { z } from 'zod';
import type { InstanceDoc } from '../../../../projections/instances/instances.projection';

/** Spec 2.2 attributes of an instance (plus a few the create body takes). */
export const instanceAttributes = z.object({
  name: z.string(),
  hostname: z.string(),
  label: z.string(),
  status: z.enum(['creating', 'active', 'stopping', 'stopped', 'error', 'terminated', 'terminating', 'starting', 'provisioning']),
  site: z.string(),
  role: z.enum(['BareMetal', 'VirtualMachine']),
  plan: z.union([z.string(), z.object({ name: z.string(), slug: z.string() })]),
  operating_system: z.union([z.string(), z.object({ name: z.string(), slug: z.string() })]).nullable(),
  billing: z.string(),
  provider: z.string(),
  providerId: z.string(),
  ipmi_status: z.string(),
  primary_ipv4: z.string().nullable(),
  primary_ipv6: z.string().nullable(),
  ssh_keys: z.array(z.string()),
  sshKeyFingerprint: z.string().nullable(),
  tags: z.array(z.object({ key: z.string(), value: z.string() })),
  backups_enabled: z.boolean(),
  credentials: z.object({ username: z.string().nullable(), sshPort: z.number().nullable() }),
  specs: z.object({ vcpus: z.number(), ramMb: z.number(), diskGb: z.number(), gpus: z.number(), gpuType: z.string().nullable() }),
  interfaces: z.array(z.object({ name: z.string(), ipv4: z.string().nullable(), ipv6: z.string().nullable() })),
  region: z.string(),
  instanceType: z.string(),
  workerCount: z.number().int(),
  externalId: z.string().nullable(),
  ipAddress: z.string().nullable(),
  errorMessage: z.string().nullable(),
  vcpus: z.number().int(),
  ramMb: z.number().int(),
  diskGb: z.number().int(),
  gpus: z.number().int(),
  gpuType: z.string().nullable(),
  image: z.string().nullable(),
  spot: z.boolean(),
  ports: z.array(z.number().int()),
  autoStopMinutes: z.number().int().nullable(),
  accelerators: z.string().nullable(),
  jobId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const INSTANCE_SORT_FIELDS = ['name', 'status', 'createdAt', 'region'];

export function instanceResource(doc: InstanceDoc, opts: { expandPlan?: boolean } = {}) {
  const os = doc.operatingSystem;
  return {
    id: doc.id,
    type: 'instances',
    attributes: {
      name: doc.name,
      hostname: doc.hostname,
      label: doc.name,
      status: doc.status,
      site: doc.site,
      role: doc.providerKind === 'provider_baremetal' ? 'BareMetal' : 'VirtualMachine',
      plan: opts.expandPlan ? doc.plan : doc.plan.slug,
      operating_system: os ? (opts.expandPlan ? os : os.slug) : null,
      billing: 'hourly',
      provider: doc.providerKind,
      providerId: doc.providerId,
      ipmi_status: doc.providerKind === 'provider_baremetal' ? (doc.status === 'active' ? 'on' : doc.status === 'stopped' ? 'off' : 'unknown') : 'not_applicable',
      primary_ipv4: doc.ipv4,
      primary_ipv6: doc.ipv6,
      ssh_keys: doc.sshKeyId ? [doc.sshKeyId] : [],
      sshKeyFingerprint: doc.sshKeyFingerprint ?? null,
      tags: doc.tags,
      backups_enabled: false,
      credentials: { username: doc.sshUser, sshPort: doc.sshPort },
      specs: { vcpus: doc.vcpus, ramMb: doc.ramMb, diskGb: doc.diskGb, gpus: doc.gpus, gpuType: doc.gpuType },
      interfaces: doc.ipv4 || doc.ipv6 ? [{ name: 'eth0', ipv4: doc.ipv4, ipv6: doc.ipv6 }] : [],
      region: doc.region,
      instanceType: doc.instanceType,
      workerCount: doc.workerCount,
      externalId: doc.externalId,
      ipAddress: doc.ipv4,
      errorMessage: doc.errorMessage,
      vcpus: doc.vcpus,
      ramMb: doc.ramMb,
      diskGb: doc.diskGb,
      gpus: doc.gpus,
      gpuType: doc.gpuType,
      image: doc.image,
      spot: doc.spot,
      ports: doc.ports,
      autoStopMinutes: doc.autoStopMinutes,
      accelerators: doc.accelerators,
      jobId: doc.jobId,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
      deletedAt: doc.deletedAt,
      created_at: doc.createdAt,
      updated_at: doc.updatedAt,
    },
  };
}

/** Tags as a request sends them: an object of string values or an array of `{key, value}`. */
export const tagsInput = z.union([
  z.record(z.string().min(1).max(128), z.string().max(256)),
  z.array(z.object({ key: z.string().min(1).max(128), value: z.string().max(256) })),
]);

/** As events and documents hold them: one per key (the last one sent), ordered by key. */
export function normalizeTags(tags: z.infer<typeof tagsInput>): Array<{ key: string; value: string }>;
export function normalizeTags(tags: z.infer<typeof tagsInput> | undefined): Array<{ key: string; value: string }> | undefined;
export function normalizeTags(tags: z.infer<typeof tagsInput> | undefined): Array<{ key: string; value: string }> | undefined {
  if (tags === undefined) return undefined;
  const list = Array.isArray(tags) ? tags : Object.entries(tags).map(([key, value]) => ({ key, value }));
  const byKey = new Map(list.map((t) => [t.key, t.value]));
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => ({ key, value }));
}
