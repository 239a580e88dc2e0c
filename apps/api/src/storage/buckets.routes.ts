import { bucketId, buckets } from '../../../../libs/domain/storage/bucket.resource';
import { bucketsProjection } from '../../../../projections/buckets/buckets.projection';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';
import { loadSettings } from '../../../../usecases/admin/platform-settings';

/** Object storage (spec 4.9, DECISIONS 14): S3-named buckets, unique per provider (409), created and deleted by jobs. */
export const bucketRoutes: JobResourceRoutes<typeof buckets.schema> = {
  resource: buckets,
  projection: bucketsProjection,
  type: 'buckets',
  path: '/v1/storage/object-storage/buckets',
  tag: 'Storage',
  permission: 'storage',
  capability: 'buckets',
  summaries: {
    list: 'List the object-storage buckets of the project',
    get: 'Get a bucket',
    create: 'Create a bucket (202, a bucket.create job); a name taken at the provider is 409 CONFLICT',
    delete: 'Delete a bucket (202, a bucket.delete job); its name is free again once done',
  },
  idFor: (_projectId, providerId, fields) => bucketId(providerId, fields.name),
  // A bucket at the platform's flat storage rate (DECISIONS 22).
  price: async ({ ports }) => ({ resourceType: 'bucket', marginPercent: (await loadSettings(ports)).marginPercent }),
};
export const BucketsController = jobResourceController(bucketRoutes);
