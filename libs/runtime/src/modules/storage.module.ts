import { jobResourceEventTypes } from '../../../domain/shared/job-resource';
import { volumes } from '../../../domain/storage/volume.resource';
import { volumesProjection } from '../../../../projections/volumes/volumes.projection';
import { declaredJobResource } from '../../../../sagas/job-operations/declared-resource';
import type { ContextModule } from '../context-module';

/** Storage (spec 4.9): volumes so far. */
export const storageModule: ContextModule = {
  name: 'storage',
  projections: [volumesProjection],
  jobResources: [declaredJobResource(volumes, volumesProjection.name)],
  eventTypes: Object.values(jobResourceEventTypes(volumes)),
};
