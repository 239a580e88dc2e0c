import { z } from 'zod';
import { resourceFields } from '../shared/resource-fields';
import { SERVER_STATUSES } from './server.events';

const catalogRef = z.object({ slug: z.string(), name: z.string() });

/**
 * A server's fields (spec 2.3): the servers read model's document keeps them (beside the rest of
 * the request's spec), and its answers show them. The provider is answered by its id as `provider`,
 * the address as `primaryIpv4`; `ipmiStatus` and `rescueAllowed` follow from role and status.
 */
export const SERVER = resourceFields(
  z.object({
    name: z.string(),
    hostname: z.string(),
    label: z.string(),
    status: z.enum(SERVER_STATUSES),
    role: z.enum(['BareMetal', 'VirtualMachine']),
    site: z.string(),
    region: z.string(),
    locked: z.boolean(),
    billing: z.enum(['hourly', 'monthly', 'yearly']),
    plan: catalogRef,
    operatingSystem: catalogRef,
    providerId: z.string().nullable(),
    providerKind: z.string(),
    sshKeys: z.array(z.string()),
    tags: z.array(z.object({ key: z.string(), value: z.string() })),
    ipv4: z.string().nullable(),
    errorMessage: z.string().nullable(),
    restoredFromBackup: z.string().nullable(),
    /** The latest job of the server. */
    jobId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    deletedAt: z.string().nullable(),
  }),
  {
    shape: { ipmiStatus: z.string(), rescueAllowed: z.boolean(), provider: z.string().nullable(), primaryIpv4: z.string().nullable() },
    replaces: ['providerId', 'ipv4'],
    from: (doc) => ({
      ipmiStatus: doc.role !== 'BareMetal' ? 'not_applicable' : ['active', 'restarted', 'migrating'].includes(doc.status) ? 'on' : doc.status === 'stopped' || doc.status === 'terminated' ? 'off' : 'unknown',
      rescueAllowed: doc.role === 'BareMetal' && (doc.status === 'active' || doc.status === 'stopped'),
      provider: doc.providerId,
      primaryIpv4: doc.ipv4,
    }),
  },
);
