import { databases } from '../../libs/domain/databases/database.resource';
import { jobResourceEventTypes } from '../../libs/domain/shared/job-resource';
import { databasesProjection } from '../../projections/databases/databases.projection';
import { declaredJobResource } from '../../sagas/job-operations/declared-resource';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Managed databases (DECISIONS 14), their own context: create and delete are jobs. */
export const databasesModule: ContextModule = {
  name: 'databases',
  projections: [databasesProjection],
  jobResources: [declaredJobResource(databases, databasesProjection.name)],
  eventTypes: Object.values(jobResourceEventTypes(databases)),
};
