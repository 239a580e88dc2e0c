import { v7 as uuidv7 } from 'uuid';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { InstanceDoc } from '../../projections/instances/instances.projection';
import { requestInstanceAction } from '../../usecases/compute/request-instance-action';

/** The auto-stop timer's stop is a requested stop by the system; an instance that moved on meanwhile is left alone. */
export function stopIdleInstance(ports: PortsOf<'events' | 'projections' | 'clock'>, jobResources: readonly AnyJobBackedResource[]) {
  return async (doc: InstanceDoc): Promise<void> => {
    const ctx = { metadata: { projectId: doc.projectId, actor: 'system:auto-stop' } };
    await requestInstanceAction(ports, { projectId: doc.projectId, instanceId: doc.id, action: 'stop', jobId: uuidv7() }, ctx, jobResources).catch((err) => {
      if (!(err instanceof DomainError && err.code === 'INVALID_STATE')) throw err;
    });
  };
}
