import { networkDatabases } from '../../libs/domain/networking/network-database.resource';
import { indexOn } from '../../libs/readstore/src/list-shapes';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type NetworkDatabaseDoc = JobResourceDoc<typeof networkDatabases.schema>;

/** Serves `GET /v1/networking/{networkId}/db` (a network's attachments) and the one-attachment-per-database check. */
export const networkDatabasesProjection = jobResourceProjection(networkDatabases, {
  name: 'network_databases',
  version: 1,
  list: { ...jobResourceListShape('GET /v1/networking/{networkId}/db'), equal: ['projectId', 'networkId'], sortable: ['createdAt', 'status', 'privateIp'] },
  indexes: [indexOn('networkId', 'databaseId', 'id')],
});
