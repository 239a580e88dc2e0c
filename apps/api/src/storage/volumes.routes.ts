import { z } from 'zod';
import { volumes } from '../../../../libs/domain/storage/volume.resource';
import { AppError } from '../../../../libs/application/src/errors';
import { instancesProjection } from '../../../../projections/instances/instances.projection';
import { volumesProjection } from '../../../../projections/volumes/volumes.projection';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';
import { loadSettings } from '../../../../usecases/admin/platform-settings';

/** Block storage (spec 4.9, DECISIONS 14): create, attach to an instance, detach, delete; each a job. */
export const volumeRoutes: JobResourceRoutes<typeof volumes.schema> = {
  resource: volumes,
  projection: volumesProjection,
  type: 'volumes',
  path: '/v1/storage/volumes',
  tag: 'Storage',
  permission: 'storage',
  capability: 'volumes',
  summaries: { list: 'List the volumes of the project', get: 'Get a volume', create: 'Create a volume (202, a volume.create job)', delete: 'Delete a detached volume (202, a volume.delete job)' },
  body: volumes.schema.omit({ instanceId: true }),
  records: { list: "The volume records the service holds, with the provider's ids", create: 'Register a volume that exists at the provider but was made outside the API (an import)' },
  actions: {
    attach: {
      summary: 'Attach the volume to an instance of the project in its region (202, a volume.attach job)',
      body: z.object({ instanceId: z.string().min(1).max(1024) }),
      // The instance must be the project's (404 otherwise, reported on the field) and not gone; its region goes to the rule.
      async prepare({ ports, projectId, body, pointerPrefix }) {
        const instance = await (await ports.projections.collection(instancesProjection)).get(String(body.instanceId));
        if (!instance || instance.projectId !== projectId || instance.status === 'terminated' || instance.status === 'terminating') {
          throw new AppError('NOT_FOUND', `Instance ${String(body.instanceId)} not found`, { source: { pointer: `${pointerPrefix}/instanceId` } });
        }
        const simulate = instance.tags.find((t) => t.key === 'simulate')?.value;
        return { instanceId: instance.id, instanceRegion: instance.region, ...(simulate ? { simulate } : {}) };
      },
    },
    detach: { summary: 'Detach the volume from its instance (202, a volume.detach job)' },
  },
  // A volume is priced by its size at the platform's storage rate (DECISIONS 22).
  price: async ({ ports, body }) => ({ resourceType: 'volume', sizeGb: body.sizeGb, marginPercent: (await loadSettings(ports)).marginPercent }),
};
export const VolumesController = jobResourceController(volumeRoutes);
