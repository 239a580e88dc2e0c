import { fileSystemResource } from '../../../../usecases/storage/file-systems';
import { jobResourceController } from '../common/job-resource.routes';

/** Shared file systems (spec 4.9, DECISIONS 14): created and deleted by jobs, mounted at the provider's mount target. */
export const FileSystemsController = jobResourceController({
  ...fileSystemResource,
  path: '/v1/storage/file-systems',
  tag: 'Storage',
  permission: 'storage',
  summaries: {
    list: 'List the file systems of the project',
    get: 'Get a file system',
    create: 'Create a file system (202, a file-system.create job)',
    delete: 'Delete a file system (202, a file-system.delete job)',
  },
});
