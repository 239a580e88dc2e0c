import { jobResourceEventTypes } from '../../libs/domain/shared/job-resource';
import { buckets } from '../../libs/domain/storage/bucket.resource';
import { fileSystems } from '../../libs/domain/storage/file-system.resource';
import { snapshots } from '../../libs/domain/storage/snapshot.resource';
import { volumes } from '../../libs/domain/storage/volume.resource';
import { bucketsProjection } from '../../projections/buckets/buckets.projection';
import { fileSystemsProjection } from '../../projections/file-systems/file-systems.projection';
import { snapshotsProjection } from '../../projections/snapshots/snapshots.projection';
import { volumesProjection } from '../../projections/volumes/volumes.projection';
import { declaredJobResource } from '../../sagas/job-operations/declared-resource';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Storage (spec 4.9): volumes, snapshots (records only), file systems and object-storage buckets. */
export const storageModule: ContextModule = {
  name: 'storage',
  projections: [volumesProjection, snapshotsProjection, fileSystemsProjection, bucketsProjection],
  jobResources: [
    declaredJobResource(volumes, volumesProjection.name),
    declaredJobResource(snapshots, snapshotsProjection.name),
    declaredJobResource(fileSystems, fileSystemsProjection.name),
    declaredJobResource(buckets, bucketsProjection.name),
  ],
  eventTypes: [volumes, snapshots, fileSystems, buckets].flatMap((r) => Object.values(jobResourceEventTypes(r))),
};
