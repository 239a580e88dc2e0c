import { jobResourceEventTypes, type AnyJobResource, type JobResourceCommand } from '../shared/job-resource';

/**
 * The commands and events of a declared resource's Given/When/Then specs (test support): one
 * resource `r1` of project `p1` on provider `pv1`, everything at one instant.
 */
export function jobResourceSteps<F>(resource: AnyJobResource, fields: F) {
  const types = jobResourceEventTypes(resource);
  const at = '2026-01-01T00:00:00.000Z';
  // Fixtures are plain literals; the decider checks them against the schema itself.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Command = JobResourceCommand<any>;
  const create = (f: Record<string, unknown> = {}): Command => ({ type: 'CreateResource', id: 'r1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_baremetal', fields: { ...fields, ...f } as F, now: at });
  const requested = { type: types.requested, data: { id: 'r1', jobId: 'j1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_baremetal', fields: fields as unknown as Record<string, unknown>, requestedAt: at } };
  const completed = (jobId: string, operation: string, result: unknown = null) => ({ type: types.completed, data: { id: 'r1', jobId, at, operation, result } as Record<string, unknown> });
  const ask = (jobId: string, operation: string, args: Record<string, unknown> = {}, projectId = 'p1'): Command => ({ type: 'RequestOperation', id: 'r1', jobId, projectId, operation, args, requestedBy: 'u', now: at });
  const asked = (jobId: string, operation: string, from: string, args: Record<string, unknown> = {}) => ({ type: types.operationRequested, data: { id: 'r1', jobId, operation, args, from, requestedBy: 'u', requestedAt: at } as Record<string, unknown> });
  /** Requested, then the operation completed: the history of a request that went through. */
  const done = (jobId: string, operation: string, from: string, args: Record<string, unknown> = {}) => [asked(jobId, operation, from, args), completed(jobId, operation)];
  return { create, requested, completed, ask, asked, done, active: [requested, completed('j1', 'create', { externalId: 'x', attributes: {} })] };
}
