import { elasticIps } from '../../../../libs/domain/networking/elastic-ip.resource';
import { elasticIpsProjection } from '../../../../projections/elastic-ips/elastic-ips.projection';
import { jobResourceController } from '../common/job-resource.routes';
import { createFields } from './create-fields';
import { resolveTarget, targetBody, type TargetRef } from '../common/targets';

/** Elastic IPs (spec 4.8, DECISIONS 14): create `{region, name?}`, move to an instance or server of its region, delete; each a job. */
export const ElasticIpsController = jobResourceController({
  resource: elasticIps,
  projection: elasticIpsProjection,
  type: 'elastic-ips',
  path: '/v1/networking/elastic-ips',
  tag: 'Networking',
  permission: 'networking',
  capability: 'elastic-ips',
  summaries: { list: 'List the elastic IPs of the project', get: 'Get an elastic IP', create: 'Allocate an elastic IP in a region (202, an elastic-ip.create job)', delete: 'Release an elastic IP (202, an elastic-ip.delete job)' },
  body: elasticIps.schema.omit({ targetType: true, targetId: true }),
  prepare: createFields(elasticIps.schema),
  actions: {
    move: {
      summary: 'Move the elastic IP to an instance or server of the project in its region (202, an elastic-ip.move job)',
      body: targetBody,
      prepare: ({ ports, projectId, body, pointerPrefix }) => resolveTarget(ports, projectId, body as TargetRef, pointerPrefix),
    },
  },
});
