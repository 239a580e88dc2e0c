import { v7 as uuidv7 } from 'uuid';
import { BatchEventTypes } from '../../../domain/batches/events';
import { instanceDecider } from '../../../domain/compute/instance.decider';
import { INSTANCE_EVENT_TYPES, instanceStream } from '../../../domain/compute/instance.events';
import { BACKUP_EVENT_TYPES } from '../../../domain/servers/backup.events';
import { SERVER_EVENT_TYPES } from '../../../domain/servers/server.events';
import { DomainError } from '../../../domain/shared/domain-error';
import { sshKeys } from '../../../domain/ssh-keys/ssh-key.resource';
import { instanceTemplates } from '../../../domain/templates/instance-template.resource';
import { simpleResourceEventTypes } from '../../../domain/shared/simple-resource';
import { handleCommand } from '../../../eventstore/src/handle-command';
import { backupsProjection } from '../../../../projections/backups/backups.projection';
import { batchesProjection } from '../../../../projections/batches/batches.projection';
import { instanceEventsProjection } from '../../../../projections/instance-events/instance-events.projection';
import { instancesProjection, type InstanceDoc } from '../../../../projections/instances/instances.projection';
import { serversProjection } from '../../../../projections/servers/servers.projection';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import { templatesProjection } from '../../../../projections/templates/templates.projection';
import { volumesHeldBy, volumesProjection } from '../../../../projections/volumes/volumes.projection';
import { AutoStopper } from '../../../../sagas/auto-stop/auto-stopper';
import { BatchFanout, instanceBatchRequester, serverBatchRequester } from '../../../../sagas/batch-fanout/batch-fanout';
import { JOB_BACKED_RESOURCES } from '../../../../sagas/job-operations/job-backed-resources';
import { isoNow } from '../clock';
import type { ContextModule, RuntimeServices } from '../context-module';

/** The auto-stop timer's stop is a requested stop by the system; an instance that moved on meanwhile is left alone. */
function stopIdleInstance(rt: RuntimeServices) {
  return async (doc: InstanceDoc): Promise<void> => {
    const ctx = { metadata: { projectId: doc.projectId, actor: 'system:auto-stop' } };
    const command = { type: 'RequestInstanceAction' as const, jobId: uuidv7(), action: 'stop' as const, now: isoNow(rt.clock), requestedBy: 'system:auto-stop' };
    await handleCommand(rt.events, instanceStream(doc.id), instanceDecider, command, ctx).catch((err) => {
      if (!(err instanceof DomainError && err.code === 'INVALID_STATE')) throw err;
    });
  };
}

/** Instances, servers, backups, batches, SSH keys and templates (spec 4.1 to 4.7). */
export const computeModule: ContextModule = {
  name: 'compute',
  projections: [sshKeysProjection, templatesProjection, instancesProjection, instanceEventsProjection, batchesProjection, serversProjection, backupsProjection],
  processManagers: (rt) => {
    const heldVolumes = async (instanceId: string) => volumesHeldBy(await rt.projections.collection(volumesProjection), instanceId);
    return [new BatchFanout(rt.events, { instances: instanceBatchRequester(rt.events, heldVolumes), servers: serverBatchRequester(rt.events) })];
  },
  jobResources: Object.values(JOB_BACKED_RESOURCES),
  timers: (rt) => [new AutoStopper(() => rt.projections.collection(instancesProjection), stopIdleInstance(rt), rt.logger, 5000, rt.clock)],
  eventTypes: [...INSTANCE_EVENT_TYPES, ...SERVER_EVENT_TYPES, ...BACKUP_EVENT_TYPES, ...BatchEventTypes, ...simpleResourceEventTypes(sshKeys), ...simpleResourceEventTypes(instanceTemplates)],
};
