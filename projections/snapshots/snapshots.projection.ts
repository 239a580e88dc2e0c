import { snapshots } from '../../libs/domain/storage/snapshot.resource';
import { indexOn } from '../../libs/readstore/src/list-shapes';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type SnapshotDoc = JobResourceDoc<typeof snapshots.schema>;

/** Serves GET /v1/storage/snapshots and the operator's records (GET /v1/storage/snapshots/db). */
export const snapshotsProjection = jobResourceProjection(snapshots, {
  name: 'snapshots',
  version: 1,
  list: jobResourceListShape('GET /v1/storage/snapshots'),
  // A volume's snapshots.
  indexes: [indexOn('volumeId', 'id')],
});
