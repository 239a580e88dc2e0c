import { z } from 'zod';
import { volumes } from '../../../../libs/domain/storage/volume.resource';
import { volumeResource } from '../../../../usecases/storage/volumes';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';

/** Block storage (spec 4.9, DECISIONS 14): create, attach to an instance, detach, delete; each a job. The lookups and price are the use case's (usecases/storage). */
export const volumeRoutes: JobResourceRoutes<typeof volumes.schema> = {
  ...volumeResource,
  path: '/v1/storage/volumes',
  tag: 'Storage',
  permission: 'storage',
  summaries: { list: 'List the volumes of the project', get: 'Get a volume', create: 'Create a volume (202, a volume.create job)', delete: 'Delete a detached volume (202, a volume.delete job)' },
  body: volumes.schema.omit({ instanceId: true }),
  records: { list: "The volume records the service holds, with the provider's ids", create: 'Register a volume that exists at the provider but was made outside the API (an import)' },
  actions: {
    attach: { ...volumeResource.actions.attach, summary: 'Attach the volume to an instance of the project in its region (202, a volume.attach job)', body: z.object({ instanceId: z.string().min(1).max(1024) }) },
    detach: { summary: 'Detach the volume from its instance (202, a volume.detach job)' },
  },
};
export const VolumesController = jobResourceController(volumeRoutes);
