import { volumes } from '../../libs/domain/storage/volume.resource';
import { AppError } from '../../libs/application/src/errors';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { volumesProjection } from '../../projections/volumes/volumes.projection';
import { loadSettings } from '../admin/platform-settings';
import type { JobResourceUseCase } from '../resources/job-resources';

/** Block storage (spec 4.9, DECISIONS 14): created, attached to an instance, detached, deleted; each a job. */
export const volumeResource = {
  resource: volumes,
  projection: volumesProjection,
  type: 'volumes',
  capability: 'volumes',
  actions: {
    attach: {
      // The instance must be the project's (404 otherwise, reported on the field) and not gone; its region goes to the rule.
      async prepare({ ports, projectId, body }) {
        const instance = await (await ports.projections.collection(instancesProjection)).get(String(body.instanceId));
        if (!instance || instance.projectId !== projectId || instance.status === 'terminated' || instance.status === 'terminating') {
          throw new AppError('NOT_FOUND', `Instance ${String(body.instanceId)} not found`, { source: { pointer: '/instanceId' } });
        }
        const simulate = instance.tags.find((t) => t.key === 'simulate')?.value;
        return { instanceId: instance.id, instanceRegion: instance.region, ...(simulate ? { simulate } : {}) };
      },
    },
  },
  // A volume is priced by its size at the platform's storage rate (DECISIONS 22).
  price: async ({ ports, body }) => ({ resourceType: 'volume', sizeGb: body.sizeGb, marginPercent: (await loadSettings(ports)).marginPercent }),
} satisfies JobResourceUseCase<typeof volumes.schema>;
