import { buckets } from '../../libs/domain/storage/bucket.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type BucketDoc = JobResourceDoc<typeof buckets.schema>;

export const bucketsProjection = jobResourceProjection(buckets, {
  name: 'buckets',
  version: 1,
  list: jobResourceListShape('GET /v1/storage/object-storage/buckets'),
});
