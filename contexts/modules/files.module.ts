import { FILE_EVENT_TYPES } from '../../libs/domain/files/events';
import { fileVersionsProjection } from '../../projections/file-versions/file-versions.projection';
import { filesProjection } from '../../projections/files/files.projection';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Files (spec 2.7, 4.14): versioned project files with soft delete; no process managers or jobs. */
export const filesModule: ContextModule = {
  name: 'files',
  projections: [filesProjection, fileVersionsProjection],
  eventTypes: FILE_EVENT_TYPES,
};
