import { z } from 'zod';
import { sameRegion, type JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { overlaps, privateCidrSchema } from './cidr';
import { networkTargetSchema, notYetHeld, withTarget } from './targets';

export type PrivateNetworkStatus = 'creating' | 'active' | 'attaching' | 'deleting' | 'deleted' | 'error';
export type PrivateNetworkOperation = 'create' | 'attach' | 'delete';

export const privateNetworkStream = (id: string) => `privatenetwork-${id}`;

/** Private networks (spec 4.8; DECISIONS 14): a private range of one region, attached to its instances and servers. */
export const privateNetworkSchema = z.object({
  name: z.string().min(1).max(64),
  region: z.string().min(1).max(64),
  cidr: privateCidrSchema,
  targets: z.array(networkTargetSchema).default([]),
  tags: tagsSchema.default([]),
});
export type PrivateNetworkFields = z.output<typeof privateNetworkSchema>;

const inRegion = sameRegion('private network');
const unattached = notYetHeld('private network');

export const privateNetworks: JobResource<typeof privateNetworkSchema, PrivateNetworkOperation, PrivateNetworkStatus> = {
  context: 'networking',
  name: 'PrivateNetwork',
  label: 'Private network',
  kind: 'private-network',
  stream: privateNetworkStream,
  schema: privateNetworkSchema,
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    attach: { from: ['active'], transient: 'attaching', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: { attach: (fields, args) => unattached(fields, args) ?? inRegion(fields, args) },
  complete: { attach: withTarget },
};

/**
 * DECISIONS 14: two private networks of a project in one region may not overlap. The project's other
 * networks of that region (a lookup) are passed in; the first one `cidr` overlaps, or null.
 */
export function overlappingNetwork<N extends { cidr: string }>(cidr: string, others: readonly N[]): N | null {
  return others.find((n) => overlaps(n.cidr, cidr)) ?? null;
}
