import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import { sameRegion, type JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { sameTarget, targetOf } from './targets';

export type ElasticIpStatus = 'creating' | 'active' | 'moving' | 'deleting' | 'deleted' | 'error';
export type ElasticIpOperation = 'create' | 'move' | 'delete';

export const elasticIpStream = (id: string) => `elasticip-${id}`;

/** Elastic IPs (spec 4.8; DECISIONS 14): a regional address held by at most one instance or server at a time. */
export const elasticIpSchema = z.object({
  name: z.string().min(1).max(64).nullable().default(null),
  region: z.string().min(1).max(64),
  /** The current holder (set by a completed move, which replaces the previous one). */
  targetType: z.enum(['instance', 'server']).nullable().default(null),
  targetId: z.string().nullable().default(null),
  tags: tagsSchema.default([]),
});

const inRegion = sameRegion('elastic IP');

export const elasticIps: JobResource<typeof elasticIpSchema, ElasticIpOperation, ElasticIpStatus> = {
  context: 'networking',
  name: 'ElasticIp',
  label: 'Elastic IP',
  kind: 'elastic-ip',
  stream: elasticIpStream,
  schema: elasticIpSchema,
  provided: z.object({ address: z.string().nullable().describe('The public address the provider assigned') }),
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    // Assigned or not, it is `active`; a move from one target to another is one operation.
    move: { from: ['active'], transient: 'moving', final: 'active' },
    // There is no unassign in the spec: a delete releases the address wherever it is.
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: {
    move: (fields, args) => {
      const current = fields.targetType && fields.targetId ? { targetType: fields.targetType, targetId: fields.targetId } : null;
      if (current && sameTarget(current, targetOf(args))) return new DomainError('CONFLICT', `The elastic IP is already assigned to ${current.targetType} ${current.targetId}`);
      return inRegion(fields, args);
    },
  },
  complete: {
    move: (fields, args) => ({ ...fields, ...targetOf(args) }),
  },
};
