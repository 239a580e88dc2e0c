import { DomainError } from '../../../libs/domain/shared/domain-error';
import type { Platform } from './platform/platform';
import { CatalogSyncOperation } from './catalog/catalog-sync';
import { InstancesService } from './instances/instances.service';

/**
 * The job handlers and timer callbacks that need the application's services, wired the same way in
 * every process that runs the executor and the timers: the API with ROLE=all and the worker.
 */
export function wireOperations(platform: Platform): void {
  const instances = new InstancesService(platform);
  // The auto-stop timer's stop is a requested stop by the system; an instance that moved on meanwhile is left alone.
  platform.onAutoStop = async (doc) => {
    await instances.act(doc.projectId, doc.id, 'stop', { metadata: { projectId: doc.projectId, actor: 'system:auto-stop' } }).catch((err) => {
      if (!(err instanceof DomainError && err.code === 'INVALID_STATE')) throw err;
    });
  };
  platform.executor.register('catalog', new CatalogSyncOperation(platform));
}
