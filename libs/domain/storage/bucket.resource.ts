import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { bucketNameSchema } from './bucket-name';

export type BucketStatus = 'creating' | 'active' | 'deleting' | 'deleted' | 'error';
export type BucketOperation = 'create' | 'delete';

export const bucketStream = (id: string) => `bucket-${id}`;

const BUCKET_IDS = '6f1d3c2a-5b7e-4c8d-9a0f-1e2d3c4b5a69';
/**
 * A bucket's id derives from its provider and name, so two creates of one name at one provider land
 * on the same stream and the second is refused (409 CONFLICT) by the stream's expected revision;
 * once the first is deleted the name may be used again.
 */
export const bucketId = (providerId: string, name: string): string => uuidv5(`${providerId}/${name}`, BUCKET_IDS);

/** Object-storage buckets (spec 4.9, DECISIONS 14): S3 names, unique per provider. */
export const bucketSchema = z.object({
  name: bucketNameSchema,
  region: z.string().min(1).max(64),
  tags: tagsSchema.default([]),
});

export const buckets: JobResource<typeof bucketSchema, BucketOperation, BucketStatus> = {
  context: 'storage',
  name: 'Bucket',
  label: 'Bucket',
  kind: 'bucket',
  stream: bucketStream,
  schema: bucketSchema,
  provided: z.object({ endpoint: z.string().nullable().describe("The bucket's S3 endpoint, once active") }),
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  reusableIds: true,
  conflict: (fields) => `Bucket name ${fields.name} is already taken at this provider`,
};
