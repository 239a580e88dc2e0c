import type { BatchDoc } from '../../projections/batches/batches.projection';
import { jobsProjection, type JobDoc } from '../../projections/jobs/jobs.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

export type BatchStatus = 'accepted' | 'processing' | 'completed' | 'failed' | 'partially_failed';

/** A batch with the current outcome of each resource, read from the jobs it fanned out. */
export async function batchOutcome(ports: PortsOf<'projections'>, doc: BatchDoc) {
  const jobIds = doc.items.map((i) => i.jobId).filter((x): x is string => x !== null);
  const jobs = new Map<string, JobDoc>((await (await ports.projections.collection(jobsProjection)).getMany(jobIds)).map((j) => [j.id, j]));
  const items = doc.items.map((i) => {
    if (i.rejected) return { resourceId: i.resourceId, jobId: null, status: 'rejected', error: i.rejected.error, code: i.rejected.code };
    if (!i.jobId) return { resourceId: i.resourceId, jobId: null, status: 'accepted', error: null, code: null };
    const job = jobs.get(i.jobId);
    return { resourceId: i.resourceId, jobId: i.jobId, status: job?.status ?? 'pending', error: job?.status === 'failed' ? job.error : null, code: null };
  });
  const succeeded = items.filter((i) => i.status === 'completed').length;
  const failed = items.filter((i) => i.status === 'failed' || i.status === 'rejected').length;
  const inProgress = items.length - succeeded - failed;
  const status: BatchStatus = items.some((i) => i.status === 'accepted')
    ? 'accepted'
    : inProgress > 0
      ? 'processing'
      : failed === 0
        ? 'completed'
        : succeeded === 0
          ? 'failed'
          : 'partially_failed';
  const ended = [...jobs.values()].map((j) => j.completedAt).filter((x): x is string => x !== null);
  const updatedAt = [doc.updatedAt, ...[...jobs.values()].map((j) => j.updatedAt)].reduce((a, b) => (b > a ? b : a));
  return { status, total: items.length, succeeded, failed, inProgress, items, updatedAt, lastCompletedAt: ended.length ? ended.reduce((a, b) => (b > a ? b : a)) : null };
}

/**
 * The batch as the job its 202 names (DECISIONS 13: a request that starts jobs answers with a
 * `jobId`): GET /v1/jobs/{batchId} shows the fan-out as one job whose status sums up its items.
 * Its work is retried per item (each item's own job), so it has a single attempt.
 */
export async function batchJobResource(ports: PortsOf<'projections'>, doc: BatchDoc) {
  const o = await batchOutcome(ports, doc);
  const status = o.status === 'accepted' ? 'pending' : o.status === 'processing' ? 'processing' : o.status === 'completed' ? 'completed' : 'failed';
  const terminal = status === 'completed' || status === 'failed';
  return {
    id: doc.id,
    type: 'jobs' as const,
    attributes: {
      type: doc.action === 'delete' ? ('batch.delete' as const) : ('batch.action' as const),
      status,
      attempts: status === 'pending' ? 0 : 1,
      maxAttempts: 1,
      error: status === 'failed' ? `${o.failed} of ${o.total} items failed or were rejected; see GET /v1/batch/batch/status?batchId=${doc.id}` : null,
      resourceType: 'batch',
      resourceId: doc.id,
      instanceId: null,
      operation: doc.action,
      payload: { action: doc.action, resourceType: doc.resourceType, resourceIds: doc.items.map((i) => i.resourceId), succeeded: o.succeeded, failed: o.failed, inProgress: o.inProgress },
      nextAttemptAt: null,
      createdAt: doc.createdAt,
      updatedAt: o.updatedAt,
      startedAt: status === 'pending' ? null : doc.createdAt,
      completedAt: terminal ? (o.lastCompletedAt ?? doc.updatedAt) : null,
    },
  };
}
