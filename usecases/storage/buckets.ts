import { bucketId, buckets } from '../../libs/domain/storage/bucket.resource';
import { bucketsProjection } from '../../projections/buckets/buckets.projection';
import { loadSettings } from '../admin/platform-settings';
import type { JobResourceUseCase } from '../resources/job-resources';

/** Object storage (spec 4.9, DECISIONS 14): S3-named buckets, unique per provider (409), created and deleted by jobs. */
export const bucketResource = {
  resource: buckets,
  projection: bucketsProjection,
  type: 'buckets',
  capability: 'buckets',
  // The name is the id at its provider: a duplicate lands on the same stream and is refused (409).
  idFor: (_projectId, providerId, fields) => bucketId(providerId, fields.name),
  // A bucket at the platform's flat storage rate (DECISIONS 22).
  price: async ({ ports }) => ({ resourceType: 'bucket', marginPercent: (await loadSettings(ports)).marginPercent }),
} satisfies JobResourceUseCase<typeof buckets.schema>;
