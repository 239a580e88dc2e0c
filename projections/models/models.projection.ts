import { models } from '../../libs/domain/models/model.resource';
import { indexOn } from '../../libs/readstore/src/list-shapes';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type ModelDoc = JobResourceDoc<typeof models.schema>;

/** Serves the AI model routes (spec 4.16), and a cluster delete's look-up of the models it serves. */
export const modelsProjection = jobResourceProjection(models, {
  name: 'models',
  version: 1,
  list: jobResourceListShape('GET /v1/models'),
  indexes: [indexOn('clusterId', 'id')],
});
