import { z } from 'zod';
import type { JobDoc } from '../../../../projections/jobs/jobs.projection';

export const jobAttributes = z.object({
  type: z
    .string()
    .regex(/^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*$/)
    .describe("`<resourceType>.<operation>`: instance.create, instance.delete, instance.action, server.create, server.action, catalog.sync, batch.action, batch.delete, and each job-backed resource's operations (volume.create, volume.attach, …)"),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  error: z.string().nullable(),
  resourceType: z.string(),
  resourceId: z.string(),
  instanceId: z.string().nullable(),
  operation: z.string(),
  payload: z.record(z.string(), z.unknown()),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});

export function jobResource(doc: JobDoc) {
  return {
    id: doc.id,
    type: 'jobs',
    attributes: {
      type: doc.type,
      status: doc.status,
      attempts: doc.attempts,
      maxAttempts: doc.maxAttempts,
      error: doc.error,
      resourceType: doc.resourceType,
      resourceId: doc.resourceId,
      instanceId: doc.instanceId,
      operation: doc.operation,
      payload: doc.payload,
      nextAttemptAt: doc.status === 'pending' ? doc.dueAt : null,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
      startedAt: doc.startedAt,
      completedAt: doc.completedAt,
    },
  };
}
