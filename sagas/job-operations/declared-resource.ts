import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { JobType } from '../../libs/domain/jobs/events';
import { jobResourceDecider, jobResourceEventTypes, type AnyJobResource, type JobResourceResult, type JobResourceState } from '../../libs/domain/shared/job-resource';
import type { ProviderDriver } from '../../libs/providers/src/driver.port';
import type { DriverCall, JobBackedResource } from '../../libs/runtime/src/job-ports';

/** What the driver is told of a declared resource: its type, provider-side id, region, tags and fields. */
export type ResourceCallSpec = { resourceType: string; resourceId: string; region: string | null; tags: Record<string, string>; attributes: Record<string, unknown> };

type Live = Exclude<JobResourceState<Record<string, unknown>>, { status: 'none' }>;

/**
 * The process side of a declared job-backed resource (volumes, elastic IPs, clusters, …): the job
 * each request event starts (`<kind>.<operation>`, DECISIONS 14) and one generic driver call per
 * operation, carrying the request's arguments; the simulator's `simulate` tag works as for instances.
 */
export function declaredJobResource(resource: AnyJobResource, readModel: string): JobBackedResource<string, Live & { status: string }, JobResourceResult> {
  const types = jobResourceEventTypes(resource);
  const jobName = (operation: string): string => (resource.jobNames as Record<string, string> | undefined)?.[operation] ?? operation;
  const call =
    (operation: string): DriverCall<JobResourceResult> =>
    (driver: ProviderDriver, t) => {
      const spec = t.spec as unknown as ResourceCallSpec;
      return driver.resourceOperation(t.token, { ...spec, operation: jobName(operation), resourceId: t.externalId });
    };
  return {
    resourceType: resource.kind,
    declared: resource,
    label: resource.label,
    readModel,
    stream: resource.stream,
    // The process passes the decider only its operation commands.
    decider: jobResourceDecider(resource) as never,
    jobOf: (e: Pick<RecordedEvent, 'type' | 'data' | 'metadata'>) => {
      const d = e.data as Record<string, unknown>;
      const job = (operation: string, payload: Record<string, unknown>, projectId: string | null) => ({
        jobId: String(d.jobId),
        projectId,
        type: `${resource.kind}.${jobName(operation)}` as JobType,
        resourceType: resource.kind,
        resourceId: String(d.id),
        operation,
        payload,
        enqueuedAt: String(d.requestedAt),
      });
      if (e.type === types.requested) {
        const fields = Object.fromEntries(Object.entries(d.fields as Record<string, unknown>).filter(([k]) => !resource.internal?.includes(k)));
        return job('create', { ...fields, providerId: d.providerId }, String(d.projectId));
      }
      if (e.type === types.operationRequested) return job(String(d.operation), (d.args as Record<string, unknown>) ?? {}, e.metadata.projectId ?? null);
      return null;
    },
    target: (s) => {
      const fields = s.fields as Record<string, unknown>;
      const tags: Record<string, string> = Object.fromEntries(((fields.tags as Array<{ key: string; value: string }> | undefined) ?? []).map((t) => [t.key, t.value]));
      // A `simulate` tag of the operation's target (an attach, a move) applies to that operation too.
      const targetSimulate = s.currentJob?.args?.simulate;
      if (typeof targetSimulate === 'string') tags.simulate = tags.simulate ? `${tags.simulate},${targetSimulate}` : targetSimulate;
      const spec: ResourceCallSpec = { resourceType: resource.kind, resourceId: s.id, region: typeof fields.region === 'string' ? fields.region : null, tags, attributes: { ...fields, ...(s.currentJob?.args ?? {}) } };
      // The provider knows a resource by our id until its create reports its own.
      return { providerKind: s.providerKind, externalId: s.externalId ?? s.id, spec: spec as never };
    },
    calls: new Proxy({} as Record<string, DriverCall<JobResourceResult>>, { get: (_t, op) => (typeof op === 'string' && op in resource.operations ? call(op) : undefined) }),
    jobResult: (r) => ({ externalId: r.externalId, ...r.attributes }),
  };
}
