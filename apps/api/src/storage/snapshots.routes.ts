import { snapshots } from '../../../../libs/domain/storage/snapshot.resource';
import { snapshotResource } from '../../../../usecases/storage/snapshots';
import { jobResourceController } from '../common/job-resource.routes';

/**
 * Volume snapshots (spec 4.9, DECISIONS 14): listed, and registered by an operator through the
 * record routes (`/db`, an import); there is no create or delete through the API. The lookups are the
 * use case's (usecases/storage).
 */
export const SnapshotsController = jobResourceController({
  ...snapshotResource,
  path: '/v1/storage/snapshots',
  tag: 'Storage',
  permission: 'storage',
  summaries: { list: 'List the volume snapshots of the project' },
  body: snapshots.schema.omit({ region: true }),
  records: { list: "The snapshot records the service holds, with the provider's ids", create: 'Register a snapshot that exists at the provider (an import): of a volume of the project at that provider' },
});
