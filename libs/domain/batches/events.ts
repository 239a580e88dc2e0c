import type { DomainEvent } from '../shared/domain-error';

export type BatchAction = 'start' | 'stop' | 'reboot' | 'delete';
export type BatchResourceType = 'instances' | 'servers';

export type BatchRequested = DomainEvent<
  'compute.BatchRequested.v1',
  { batchId: string; projectId: string; action: BatchAction; resourceType: BatchResourceType; resourceIds: string[]; requestedAt: string }
>;
/** One resource's request went through: its own job carries the work. */
export type BatchItemDispatched = DomainEvent<'compute.BatchItemDispatched.v1', { batchId: string; resourceId: string; jobId: string; at: string }>;
/** One resource's request was refused (missing, wrong status, locked…): recorded, not retried. */
export type BatchItemRejected = DomainEvent<'compute.BatchItemRejected.v1', { batchId: string; resourceId: string; code: string; error: string; at: string }>;

export type BatchEvent = BatchRequested | BatchItemDispatched | BatchItemRejected;

export const BatchEventTypes = ['compute.BatchRequested.v1', 'compute.BatchItemDispatched.v1', 'compute.BatchItemRejected.v1'] as const;

export const batchStream = (batchId: string) => `batch-${batchId}`;
