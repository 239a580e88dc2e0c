import { z } from 'zod';
import { resourceFields } from '../shared/resource-fields';

const catalogRef = z.object({ slug: z.string(), name: z.string() });
export const INSTANCE_STATUSES = ['creating', 'active', 'stopping', 'stopped', 'error', 'terminated', 'terminating', 'starting', 'provisioning'] as const;

/**
 * An instance's fields (spec 2.2): the instances read model's document keeps them (beside the rest
 * of the request's spec and its timers), the create body takes its own of them (with the request's
 * limits), and the answers show them. Spec 2.2's names and shapes that are not stored as such are
 * the explicit derived fields below: the plan and OS by slug (a create's answer expands them, see
 * the instance routes), the role, billing and IPMI status from the provider kind, the addresses,
 * credentials, specs and interfaces, and the snake_case timestamps.
 */
export const INSTANCE = resourceFields(
  z.object({
    name: z.string(),
    hostname: z.string(),
    status: z.enum(INSTANCE_STATUSES),
    site: z.string(),
    providerKind: z.string(),
    plan: catalogRef,
    operatingSystem: catalogRef.nullable(),
    providerId: z.string(),
    ipv4: z.string().nullable(),
    ipv6: z.string().nullable(),
    sshKeyId: z.string().nullable(),
    /** SHA256 fingerprint of that key (absent in events recorded before it was kept). */
    sshKeyFingerprint: z.string().nullable().optional(),
    tags: z.array(z.object({ key: z.string(), value: z.string() })),
    sshUser: z.string().nullable(),
    sshPort: z.number().nullable(),
    region: z.string(),
    instanceType: z.string(),
    workerCount: z.number().int(),
    externalId: z.string().nullable(),
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
  }),
  {
    shape: {
      label: z.string(),
      role: z.enum(['BareMetal', 'VirtualMachine']),
      plan: z.union([z.string(), catalogRef]),
      operating_system: z.union([z.string(), catalogRef]).nullable(),
      billing: z.string(),
      provider: z.string(),
      ipmi_status: z.string(),
      primary_ipv4: z.string().nullable(),
      primary_ipv6: z.string().nullable(),
      ssh_keys: z.array(z.string()),
      sshKeyFingerprint: z.string().nullable(),
      backups_enabled: z.boolean(),
      credentials: z.object({ username: z.string().nullable(), sshPort: z.number().nullable() }),
      specs: z.object({ vcpus: z.number(), ramMb: z.number(), diskGb: z.number(), gpus: z.number(), gpuType: z.string().nullable() }),
      interfaces: z.array(z.object({ name: z.string(), ipv4: z.string().nullable(), ipv6: z.string().nullable() })),
      ipAddress: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    },
    replaces: ['providerKind', 'operatingSystem', 'ipv4', 'ipv6', 'sshKeyId', 'sshUser', 'sshPort'],
    from: (doc) => {
      const bareMetal = doc.providerKind === 'provider_baremetal';
      return {
        label: doc.name,
        role: bareMetal ? ('BareMetal' as const) : ('VirtualMachine' as const),
        plan: doc.plan.slug,
        operating_system: doc.operatingSystem?.slug ?? null,
        billing: 'hourly',
        provider: doc.providerKind,
        ipmi_status: bareMetal ? (doc.status === 'active' ? 'on' : doc.status === 'stopped' ? 'off' : 'unknown') : 'not_applicable',
        primary_ipv4: doc.ipv4,
        primary_ipv6: doc.ipv6,
        ssh_keys: doc.sshKeyId ? [doc.sshKeyId] : [],
        sshKeyFingerprint: doc.sshKeyFingerprint ?? null,
        backups_enabled: false,
        credentials: { username: doc.sshUser, sshPort: doc.sshPort },
        specs: { vcpus: doc.vcpus, ramMb: doc.ramMb, diskGb: doc.diskGb, gpus: doc.gpus, gpuType: doc.gpuType },
        interfaces: doc.ipv4 || doc.ipv6 ? [{ name: 'eth0', ipv4: doc.ipv4, ipv6: doc.ipv6 }] : [],
        ipAddress: doc.ipv4,
        created_at: doc.createdAt,
        updated_at: doc.updatedAt,
      };
    },
  },
);
