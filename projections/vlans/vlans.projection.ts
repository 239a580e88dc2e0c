import { vlans } from '../../libs/domain/networking/vlan.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type VlanDoc = JobResourceDoc<typeof vlans.schema>;

/** Serves the VLAN routes. */
export const vlansProjection = jobResourceProjection(vlans, { name: 'vlans', version: 1, list: jobResourceListShape('GET /v1/networking/vlans') });
