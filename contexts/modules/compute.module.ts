import { BatchEventTypes } from '../../libs/domain/batches/events';
import { INSTANCE_EVENT_TYPES } from '../../libs/domain/compute/instance.events';
import { BACKUP_EVENT_TYPES } from '../../libs/domain/servers/backup.events';
import { SERVER_EVENT_TYPES } from '../../libs/domain/servers/server.events';
import { sshKeys } from '../../libs/domain/ssh-keys/ssh-key.resource';
import { instanceTemplates } from '../../libs/domain/templates/instance-template.resource';
import { simpleResourceEventTypes } from '../../libs/domain/shared/simple-resource';
import { backupsProjection } from '../../projections/backups/backups.projection';
import { batchesProjection } from '../../projections/batches/batches.projection';
import { instanceEventsProjection } from '../../projections/instance-events/instance-events.projection';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { serversProjection } from '../../projections/servers/servers.projection';
import { sshKeysProjection } from '../../projections/ssh-keys/ssh-keys.projection';
import { templatesProjection } from '../../projections/templates/templates.projection';
import { AutoStopper } from '../../sagas/auto-stop/auto-stopper';
import { stopIdleInstance } from '../../sagas/auto-stop/stop-idle-instance';
import { BatchFanout, instanceBatchRequester, serverBatchRequester } from '../../sagas/batch-fanout/batch-fanout';
import { JOB_BACKED_RESOURCES } from '../../sagas/job-operations/job-backed-resources';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Instances, servers, backups, batches, SSH keys and templates (spec 4.1 to 4.7). */
export const computeModule: ContextModule = {
  name: 'compute',
  projections: [sshKeysProjection, templatesProjection, instancesProjection, instanceEventsProjection, batchesProjection, serversProjection, backupsProjection],
  processManagers: (rt) => [new BatchFanout(rt.events, { instances: instanceBatchRequester(rt, rt.jobResources), servers: serverBatchRequester(rt.events, rt.jobResources) })],
  jobResources: Object.values(JOB_BACKED_RESOURCES),
  timers: (rt) => [new AutoStopper(() => rt.projections.collection(instancesProjection), stopIdleInstance(rt, rt.jobResources), rt.logger, 5000, rt.clock)],
  eventTypes: [...INSTANCE_EVENT_TYPES, ...SERVER_EVENT_TYPES, ...BACKUP_EVENT_TYPES, ...BatchEventTypes, ...simpleResourceEventTypes(sshKeys), ...simpleResourceEventTypes(instanceTemplates)],
};
