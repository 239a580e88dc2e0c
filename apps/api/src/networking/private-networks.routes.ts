import { privateNetworks } from '../../../../libs/domain/networking/private-network.resource';
import { privateNetworkResource } from '../../../../usecases/networking/private-networks';
import { targetBody } from '../../../../usecases/networking/targets';
import { jobResourceController } from '../common/job-resource.routes';

/** Private networks (spec 4.8, DECISIONS 14): a private range per region, attached to instances and servers; each a job. The lookups and the range reservation are the use case's (usecases/networking). */
export const PrivateNetworksController = jobResourceController({
  ...privateNetworkResource,
  path: '/v1/networking/private-networks',
  tag: 'Networking',
  permission: 'networking',
  summaries: { list: 'List the private networks of the project', get: 'Get a private network', create: 'Create a private network (202, a private-network.create job)', delete: 'Delete a private network (202, a private-network.delete job)' },
  body: privateNetworks.schema.omit({ targets: true }),
  actions: {
    attach: { ...privateNetworkResource.actions.attach, summary: 'Attach the private network to an instance or server of the project in its region (202, a private-network.attach job)', body: targetBody },
  },
});
