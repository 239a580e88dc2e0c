import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { contains, ipAddressSchema, parseCidr } from './cidr';

export type NetworkDatabaseStatus = 'creating' | 'active' | 'deleting' | 'deleted' | 'error';
export type NetworkDatabaseOperation = 'create' | 'delete';

export const networkDatabaseStream = (id: string) => `networkdb-${id}`;

const ATTACHMENT_IDS = '0b6c7d4e-2f1a-4e3b-8c5d-9a7f6e5d4c3b';
/**
 * An attachment's id derives from its network and address, so two attachments claiming one address
 * land on the same stream and the second is refused (409 CONFLICT) by its expected revision, even
 * at the same moment.
 */
export const networkDatabaseId = (networkId: string, privateIp: string): string => uuidv5(`${networkId}/${privateIp}`, ATTACHMENT_IDS);

/**
 * A managed database attached to a private network (spec 4.8 `/v1/networking/{networkId}/db`,
 * DECISIONS 14) at `privateIp`, inside the network's range; in the network's region.
 */
export const networkDatabaseSchema = z.object({
  networkId: z.string().min(1).max(1024),
  databaseId: z.string().min(1).max(1024),
  privateIp: ipAddressSchema,
  region: z.string().min(1).max(64),
  tags: tagsSchema.default([]),
});
export type NetworkDatabaseFields = z.output<typeof networkDatabaseSchema>;

export const networkDatabases: JobResource<typeof networkDatabaseSchema, NetworkDatabaseOperation, NetworkDatabaseStatus> = {
  context: 'networking',
  name: 'NetworkDatabase',
  label: 'Network database attachment',
  kind: 'network-database',
  stream: networkDatabaseStream,
  schema: networkDatabaseSchema,
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  reusableIds: true,
  conflict: (fields) => `${fields.privateIp} is already taken in private network ${fields.networkId}`,
};

/** Why `privateIp` cannot be a host of the network `cidr` (outside it, or the network's own address), or null. */
export function privateIpProblem(cidr: string, privateIp: string): string | null {
  const parsed = parseCidr(cidr);
  if (!parsed.ok) return `the network's range ${cidr} is not a CIDR`;
  if (privateIp.includes(':') !== parsed.cidr.network.includes(':') || !contains(cidr, privateIp)) return `privateIp ${privateIp} is outside the network's range ${cidr}`;
  if (privateIp === parsed.cidr.network) return `privateIp ${privateIp} is the network address of ${cidr}`;
  return null;
}
