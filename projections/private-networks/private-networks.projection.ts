import { privateNetworks } from '../../libs/domain/networking/private-network.resource';
import { indexOn } from '../../libs/readstore/src/list-shapes';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

/**
 * A private network as read: `cidr`, `region`, `targets` (attached instances and servers), `status`,
 * `projectId`, `providerId`. The network database attachments (`/v1/networking/{networkId}/db`) look
 * networks up here: `ownDoc(platform, privateNetworksProjection, projectId, networkId, 'Private network')`.
 */
export type PrivateNetworkDoc = JobResourceDoc<typeof privateNetworks.schema>;

/** Serves the private network routes, the create's overlap check and the network database attachments. */
export const privateNetworksProjection = jobResourceProjection(privateNetworks, {
  name: 'private_networks',
  version: 1,
  list: jobResourceListShape('GET /v1/networking/private-networks'),
  // The overlap check: a project's networks of one region.
  indexes: [indexOn('projectId', 'region', 'id')],
});
