import { elasticIps } from '../../../../libs/domain/networking/elastic-ip.resource';
import { elasticIpResource } from '../../../../usecases/networking/elastic-ips';
import { targetBody } from '../../../../usecases/networking/targets';
import { jobResourceController } from '../common/job-resource.routes';

/** Elastic IPs (spec 4.8, DECISIONS 14): create `{region, name?}`, move to an instance or server of its region, delete; each a job. The lookups are the use case's (usecases/networking). */
export const ElasticIpsController = jobResourceController({
  ...elasticIpResource,
  path: '/v1/networking/elastic-ips',
  tag: 'Networking',
  permission: 'networking',
  summaries: { list: 'List the elastic IPs of the project', get: 'Get an elastic IP', create: 'Allocate an elastic IP in a region (202, an elastic-ip.create job)', delete: 'Release an elastic IP (202, an elastic-ip.delete job)' },
  body: elasticIps.schema.omit({ targetType: true, targetId: true }),
  actions: {
    move: { ...elasticIpResource.actions.move, summary: 'Move the elastic IP to an instance or server of the project in its region (202, an elastic-ip.move job)', body: targetBody },
  },
});
