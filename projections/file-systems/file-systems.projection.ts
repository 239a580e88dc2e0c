import { fileSystems } from '../../libs/domain/storage/file-system.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type FileSystemDoc = JobResourceDoc<typeof fileSystems.schema>;

export const fileSystemsProjection = jobResourceProjection(fileSystems, {
  name: 'file_systems',
  version: 1,
  list: jobResourceListShape('GET /v1/storage/file-systems'),
});
