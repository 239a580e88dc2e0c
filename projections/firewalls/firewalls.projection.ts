import { firewalls } from '../../libs/domain/networking/firewall.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type FirewallDoc = JobResourceDoc<typeof firewalls.schema>;

/** Serves the firewall routes. */
export const firewallsProjection = jobResourceProjection(firewalls, { name: 'firewalls', version: 1, list: jobResourceListShape('GET /v1/networking/firewalls') });
