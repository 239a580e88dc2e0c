import type { buckets } from '../../../../libs/domain/storage/bucket.resource';
import { bucketResource } from '../../../../usecases/storage/buckets';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';

/** Object storage (spec 4.9, DECISIONS 14): S3-named buckets, unique per provider (409), created and deleted by jobs. The id and price are the use case's (usecases/storage). */
export const bucketRoutes: JobResourceRoutes<typeof buckets.schema> = {
  ...bucketResource,
  path: '/v1/storage/object-storage/buckets',
  tag: 'Storage',
  permission: 'storage',
  summaries: {
    list: 'List the object-storage buckets of the project',
    get: 'Get a bucket',
    create: 'Create a bucket (202, a bucket.create job); a name taken at the provider is 409 CONFLICT',
    delete: 'Delete a bucket (202, a bucket.delete job); its name is free again once done',
  },
};
export const BucketsController = jobResourceController(bucketRoutes);
