import { databases } from '../../libs/domain/databases/database.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type DatabaseDoc = JobResourceDoc<typeof databases.schema>;

/** Serves the managed database routes, and network database attachments' lookup of a project's database. */
export const databasesProjection = jobResourceProjection(databases, {
  name: 'databases',
  version: 1,
  list: jobResourceListShape('GET /v1/databases'),
});
