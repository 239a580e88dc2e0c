import { interconnections } from '../../libs/domain/networking/interconnection.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type InterconnectionDoc = JobResourceDoc<typeof interconnections.schema>;

/** Serves the interconnection routes; `?region=` matches either end (`regions`). */
export const interconnectionsProjection = jobResourceProjection(interconnections, {
  name: 'interconnections',
  version: 1,
  list: { ...jobResourceListShape('GET /v1/interconnections'), residual: ['status', 'regions', 'providerId'] },
});
