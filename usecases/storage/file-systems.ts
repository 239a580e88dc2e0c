import { fileSystems } from '../../libs/domain/storage/file-system.resource';
import { fileSystemsProjection } from '../../projections/file-systems/file-systems.projection';
import type { JobResourceUseCase } from '../resources/job-resources';

/** Shared file systems (spec 4.9, DECISIONS 14): created and deleted by jobs, mounted at the provider's mount target; no lookups of their own. */
export const fileSystemResource = {
  resource: fileSystems,
  projection: fileSystemsProjection,
  type: 'file-systems',
  capability: 'file-systems',
} satisfies JobResourceUseCase<typeof fileSystems.schema>;
