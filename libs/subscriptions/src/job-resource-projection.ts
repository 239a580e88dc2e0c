import type { z } from 'zod';
import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import { completedFields, jobResourceEventTypes, jobResourceLifecycle, type JobResource, type JobResourceResult } from '../../domain/shared/job-resource';
import { lifecycleFields } from '../../domain/shared/operations';
import { indexesFor, type ListShape } from '../../readstore/src/list-shapes';
import type { IndexSpec, ReadDoc } from '../../readstore/src/read-store.port';
import type { DocumentProjection } from './document-projection';

/** A declared job-backed resource's document: its fields, the provider's attributes and its lifecycle. */
export type JobResourceDoc<S extends z.ZodObject = z.ZodObject> = ReadDoc &
  z.output<S> & {
    projectId: string;
    providerId: string;
    providerKind: string;
    status: string;
    /** The job of the last request (null for an imported record). */
    jobId: string | null;
    errorMessage: string | null;
    externalId: string | null;
    provided: Record<string, unknown>;
    /** The request arguments of the job the resource waits for (applied when it completes). */
    pendingArgs: Record<string, unknown>;
    createdAt: string;
    updatedAt: string;
  };

/** The list every such resource serves: a project's resources, by status, region and provider. */
export const jobResourceListShape = (query: string): ListShape => ({ query, equal: ['projectId'], residual: ['status', 'region', 'providerId'], sortable: ['createdAt', 'name', 'status'] });

/**
 * The read model of a declared job-backed resource: the create writes it, lifecycle events move its
 * status, a completed operation applies the declaration's `complete`, and the completed delete
 * removes it (it lists as `deleting` until then, DECISIONS 14).
 */
export function jobResourceProjection<S extends z.ZodObject>(
  resource: JobResource<S>,
  model: { name: string; version: number; list: ListShape; indexes?: IndexSpec[] },
): DocumentProjection<JobResourceDoc<S>> & { lists: ListShape[] } {
  const types = jobResourceEventTypes(resource);
  const lifecycle = jobResourceLifecycle(resource as unknown as JobResource);
  const fieldNames = Object.keys(resource.schema.shape);
  const { list, indexes = [], ...rest } = model;
  return {
    eventTypes: Object.values(types),
    creates: [types.requested, types.imported],
    lists: [list],
    indexes: [...indexesFor([list]), ...indexes],
    documentId: (e: RecordedEvent) => String((e.data as { id: string }).id),
    evolve: (current, e: RecordedEvent) => {
      const d = e.data as Record<string, unknown>;
      const at = String(d.requestedAt ?? d.at ?? e.recordedAt);
      if (e.type === types.requested) {
        const fields = d.fields as Record<string, unknown>;
        const doc = { ...fields, id: String(d.id), _position: e.position, projectId: d.projectId, providerId: d.providerId, providerKind: d.providerKind, externalId: null, provided: {}, pendingArgs: {}, createdAt: at, updatedAt: at };
        return { ...doc, ...lifecycleFields(lifecycle, e as never) } as unknown as JobResourceDoc<S>;
      }
      if (e.type === types.imported) {
        const fields = d.fields as Record<string, unknown>;
        const at = String(d.importedAt);
        const status = (resource.operations as Record<string, { final: string }>).create.final;
        return { ...fields, id: String(d.id), _position: e.position, projectId: d.projectId, providerId: d.providerId, providerKind: d.providerKind, status, jobId: null, errorMessage: null, externalId: d.externalId, provided: d.attributes ?? {}, pendingArgs: {}, createdAt: at, updatedAt: at } as unknown as JobResourceDoc<S>;
      }
      if (!current) return null;
      const moved = lifecycleFields(lifecycle, e as never);
      if (!moved) return current;
      if (e.type === types.completed && d.operation === 'delete') return null;
      const next = { ...current, ...moved, updatedAt: at } as JobResourceDoc<S>;
      if (e.type === types.operationRequested) next.pendingArgs = (d.args as Record<string, unknown>) ?? {};
      if (e.type === types.completed) {
        const result = d.result as JobResourceResult | null;
        const fields = Object.fromEntries(fieldNames.map((k) => [k, (current as Record<string, unknown>)[k]]));
        Object.assign(next, completedFields(resource as unknown as JobResource, String(d.operation), fields, current.pendingArgs, result));
        if (result) {
          next.externalId = result.externalId ?? current.externalId;
          next.provided = { ...current.provided, ...result.attributes };
        }
        next.pendingArgs = {};
      }
      return next;
    },
    ...rest,
  };
}
