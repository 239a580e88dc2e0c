import { z } from 'zod';
import { AppError } from '../../libs/application/src/errors';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { serversProjection } from '../../projections/servers/servers.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { OperationLookups } from '../resources/job-resources';

/** DECISIONS 14: assign, attach, detach and move name their target this way. */
export const targetBody = z.object({
  targetType: z.enum(['instance', 'server']),
  targetId: z.string().min(1).max(1024),
});
export type TargetRef = z.infer<typeof targetBody>;

/** What a request records about its target: the reference and the region the rules compare. */
export type ResolvedTarget = TargetRef & { targetRegion: string; simulate?: string };

/**
 * The target must be an instance or server of the project that still exists (404 NOT_FOUND on the
 * field otherwise); its region goes to the resource's rules (`sameRegion` in libs/domain/shared/job-resource.ts).
 */
export async function resolveTarget(ports: PortsOf<'projections'>, projectId: string, ref: TargetRef): Promise<ResolvedTarget> {
  const projection = ref.targetType === 'instance' ? instancesProjection : serversProjection;
  const doc = (await (await ports.projections.collection(projection as never)).get(ref.targetId)) as { projectId: string; status: string; region: string; tags?: Array<{ key: string; value: string }> } | null;
  const gone = ['terminated', 'terminating', 'deleting'];
  if (!doc || doc.projectId !== projectId || gone.includes(doc.status)) {
    throw new AppError('NOT_FOUND', `${ref.targetType === 'instance' ? 'Instance' : 'Server'} ${ref.targetId} not found`, { source: { pointer: '/targetId' } });
  }
  // The simulator's failure injection may sit on the target too (issue 12): its `simulate` tag rides with the request.
  const simulate = doc.tags?.find((t) => t.key === 'simulate')?.value;
  return { ...ref, targetRegion: doc.region, ...(simulate ? { simulate } : {}) };
}

/** The lookups of an action whose body names a target (assign, attach, move): the target resolved as above. */
export const targetLookups: OperationLookups = {
  prepare: ({ ports, projectId, body }) => resolveTarget(ports, projectId, body as TargetRef),
};
