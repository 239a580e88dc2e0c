import { elasticIps } from '../../libs/domain/networking/elastic-ip.resource';
import { elasticIpsProjection } from '../../projections/elastic-ips/elastic-ips.projection';
import type { JobResourceUseCase } from '../resources/job-resources';
import { createFields } from './create-fields';
import { targetLookups } from './targets';

/** Elastic IPs (spec 4.8, DECISIONS 14): allocated in a region, moved to an instance or server of its region, released; each a job. */
export const elasticIpResource = {
  resource: elasticIps,
  projection: elasticIpsProjection,
  type: 'elastic-ips',
  capability: 'elastic-ips',
  prepare: createFields(elasticIps.schema),
  actions: {
    // The target: an instance or server of the project that still exists (404 on the field); its region goes to the rule.
    move: targetLookups,
  },
} satisfies JobResourceUseCase<typeof elasticIps.schema>;
