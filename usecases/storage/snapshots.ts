import { snapshots } from '../../libs/domain/storage/snapshot.resource';
import { AppError } from '../../libs/application/src/errors';
import { snapshotsProjection } from '../../projections/snapshots/snapshots.projection';
import { volumesProjection } from '../../projections/volumes/volumes.projection';
import type { JobResourceUseCase } from '../resources/job-resources';

/** Volume snapshots (spec 4.9, DECISIONS 14): listed, and registered by an operator (an import); never created or deleted through the API. */
export const snapshotResource = {
  resource: snapshots,
  projection: snapshotsProjection,
  type: 'snapshots',
  capability: 'snapshots',
  // The volume must be the project's at the snapshot's provider (404 on the field otherwise); the snapshot takes its region.
  async prepare({ ports, projectId, provider, body }) {
    const volume = await (await ports.projections.collection(volumesProjection)).get(String(body.volumeId));
    if (!volume || volume.projectId !== projectId || volume.providerId !== provider.id) {
      throw new AppError('NOT_FOUND', `Volume ${String(body.volumeId)} not found at provider ${provider.id}`, { source: { pointer: '/volumeId' } });
    }
    return { ...(body as Omit<typeof snapshots.schema._output, 'region'>), volumeId: volume.id, region: volume.region };
  },
} satisfies JobResourceUseCase<typeof snapshots.schema>;
