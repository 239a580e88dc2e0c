import { clusters } from '../../libs/domain/kubernetes/cluster.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';

export type ClusterDoc = JobResourceDoc<typeof clusters.schema>;

/** Serves the cluster routes and the kubeconfig (its endpoint and CA are the provider's result). */
export const clustersProjection = jobResourceProjection(clusters, {
  name: 'clusters',
  version: 1,
  list: jobResourceListShape('GET /v1/kubernetes/clusters'),
});
