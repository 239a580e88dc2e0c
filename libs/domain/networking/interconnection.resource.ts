import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';

export type InterconnectionStatus = 'creating' | 'active' | 'deleting' | 'deleted' | 'error';
export type InterconnectionOperation = 'create' | 'delete';

export const interconnectionStream = (id: string) => `interconnection-${id}`;

/** `1Gbps`, `500Mbps`, `10Gbps` (spec 4.8's example). */
export const bandwidthSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,4}(Mbps|Gbps)$/, { error: 'bandwidth must be a whole number of Mbps or Gbps, e.g. 1Gbps or 500Mbps' })
  .describe('e.g. 1Gbps or 500Mbps');

/** Interconnections (spec 4.8; DECISIONS 14): a private link between two different regions of one provider. */
export const interconnectionSchema = z.object({
  name: z.string().min(1).max(64),
  sourceRegion: z.string().min(1).max(64),
  targetRegion: z.string().min(1).max(64),
  bandwidth: bandwidthSchema.nullable().default(null),
  /** Both ends, so that `?region=` finds a link by either of them. */
  regions: z.array(z.string()).length(2),
  tags: tagsSchema.default([]),
});

export const interconnections: JobResource<typeof interconnectionSchema, InterconnectionOperation, InterconnectionStatus> = {
  context: 'networking',
  name: 'Interconnection',
  label: 'Interconnection',
  kind: 'interconnection',
  stream: interconnectionStream,
  schema: interconnectionSchema,
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: {
    create: (fields) => (fields.sourceRegion === fields.targetRegion ? new DomainError('BAD_REQUEST', `targetRegion: an interconnection joins two different regions (both are ${fields.targetRegion})`) : null),
  },
};
