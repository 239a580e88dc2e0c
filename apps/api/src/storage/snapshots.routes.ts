import { snapshots } from '../../../../libs/domain/storage/snapshot.resource';
import { AppError } from '../../../../libs/application/src/errors';
import { snapshotsProjection } from '../../../../projections/snapshots/snapshots.projection';
import { volumesProjection } from '../../../../projections/volumes/volumes.projection';
import { jobResourceController } from '../common/job-resource.routes';

/**
 * Volume snapshots (spec 4.9, DECISIONS 14): listed, and registered by an operator through the
 * record routes (`/db`, an import); there is no create or delete through the API.
 */
export const SnapshotsController = jobResourceController({
  resource: snapshots,
  projection: snapshotsProjection,
  type: 'snapshots',
  path: '/v1/storage/snapshots',
  tag: 'Storage',
  permission: 'storage',
  capability: 'snapshots',
  summaries: { list: 'List the volume snapshots of the project' },
  body: snapshots.schema.omit({ region: true }),
  records: { list: "The snapshot records the service holds, with the provider's ids", create: 'Register a snapshot that exists at the provider (an import): of a volume of the project at that provider' },
  // The volume must be the project's at the snapshot's provider (404 on the field otherwise); the snapshot takes its region.
  async prepare({ ports, projectId, provider, body, pointerPrefix }) {
    const volume = await (await ports.projections.collection(volumesProjection)).get(String(body.volumeId));
    if (!volume || volume.projectId !== projectId || volume.providerId !== provider.id) {
      throw new AppError('NOT_FOUND', `Volume ${String(body.volumeId)} not found at provider ${provider.id}`, { source: { pointer: `${pointerPrefix}/volumeId` } });
    }
    return { ...(body as Omit<typeof snapshots.schema._output, 'region'>), volumeId: volume.id, region: volume.region };
  },
});
