import { IdentityEventTypes } from '../../../domain/identity/events';
import { apiKeysProjection } from '../../../../projections/api-keys/api-keys.projection';
import { projectsProjection } from '../../../../projections/projects/projects.projection';
import type { ContextModule } from '../context-module';

/** Projects and API keys (spec 4.11 so far). */
export const identityModule: ContextModule = {
  name: 'identity',
  projections: [apiKeysProjection, projectsProjection],
  eventTypes: Object.values(IdentityEventTypes),
};
