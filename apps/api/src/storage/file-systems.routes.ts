import { fileSystems } from '../../../../libs/domain/storage/file-system.resource';
import { fileSystemsProjection } from '../../../../projections/file-systems/file-systems.projection';
import { jobResourceController } from '../common/job-resource.routes';

/** Shared file systems (spec 4.9, DECISIONS 14): created and deleted by jobs, mounted at the provider's mount target. */
export const FileSystemsController = jobResourceController({
  resource: fileSystems,
  projection: fileSystemsProjection,
  type: 'file-systems',
  path: '/v1/storage/file-systems',
  tag: 'Storage',
  permission: 'storage',
  capability: 'file-systems',
  summaries: {
    list: 'List the file systems of the project',
    get: 'Get a file system',
    create: 'Create a file system (202, a file-system.create job)',
    delete: 'Delete a file system (202, a file-system.delete job)',
  },
});
