import { models } from '../../libs/domain/models/model.resource';
import { jobResourceEventTypes } from '../../libs/domain/shared/job-resource';
import { modelsProjection } from '../../projections/models/models.projection';
import { declaredJobResource } from '../../sagas/job-operations/declared-resource';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** AI models (spec 4.16, DECISIONS 17): deploy (`model.deploy`), stop, start, scale and delete are jobs on the provider. */
export const aiModule: ContextModule = {
  name: 'ai',
  projections: [modelsProjection],
  jobResources: [declaredJobResource(models, modelsProjection.name)],
  eventTypes: Object.values(jobResourceEventTypes(models)),
};
