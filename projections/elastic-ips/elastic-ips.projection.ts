import { elasticIps } from '../../libs/domain/networking/elastic-ip.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type ElasticIpDoc = JobResourceDoc<typeof elasticIps.schema>;

/** Serves the elastic IP routes. */
export const elasticIpsProjection = jobResourceProjection(elasticIps, { name: 'elastic_ips', version: 1, list: jobResourceListShape('GET /v1/networking/elastic-ips') });
